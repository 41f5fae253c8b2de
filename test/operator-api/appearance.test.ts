/// <reference lib="dom" />
// CONTRACT 6 appearance (issue 10): logo (an uploaded image of this school), colours (#rrggbb; a primary
// too light for the white card refused), font, navigation, under If-Match; the sign-in and consent pages
// wear them, with the theme's style allowed by its CSP hash and button text chosen for contrast (checked
// in Chromium: a blocked style would leave the default colours). Real HTTP, both dialects.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio, textOn } from '../../src/kernel/colour-contrast.js';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { ADMIN_BASE, ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';
import { createHash } from 'node:crypto';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n% a document, not an image\n');

/** An authorization request that shows the sign-in page (nobody is signed in). */
function signInUrl(origin: string, clientId: string): string {
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:8976/callback',
    scope: 'openid',
    resource: origin,
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

interface Look {
  logoAssetId: string | null;
  logoUrl: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
  font: string;
  navigation: Array<{ label: string; url: string }>;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: appearance (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let studioOperator: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
    });
    afterAll(() => server?.close());

    const upload = async (origin: string, token: string, body: Buffer, type: string) => {
      const res = await fetch(`${origin}${ADMIN_BASE}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body: new Uint8Array(body),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { asset: { id: string; url: string } }).asset;
    };

    it('starts from the defaults, and changes logo, colours, font and navigation under If-Match (stale: 412)', async () => {
      const first = await call(server.academy, 'GET', '/appearance', operator);
      expect(first.body.appearance).toMatchObject({ logoAssetId: null, primaryColor: null, font: 'system', navigation: [] });
      const tag = first.headers.get('etag') ?? '';
      const logo = await upload(server.academy, operator, PNG, 'image/png');
      const changed = await call(
        server.academy,
        'PATCH',
        '/appearance',
        operator,
        {
          logoAssetId: logo.id,
          primaryColor: '#7B1FA2',
          backgroundColor: '#fff8e1',
          font: 'serif',
          navigation: [
            { label: 'Courses', url: '/courses' },
            { label: 'Blog', url: 'https://blog.example.com' },
          ],
        },
        { 'if-match': tag },
      );
      expect(changed.status).toBe(200);
      expect(changed.body.appearance).toMatchObject({ logoAssetId: logo.id, logoUrl: logo.url, primaryColor: '#7b1fa2', font: 'serif' });
      expectProblem(
        await call(server.academy, 'PATCH', '/appearance', operator, { font: 'mono' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      // Only what is given changes.
      const partial = await call(server.academy, 'PATCH', '/appearance', operator, { backgroundColor: null });
      expect(partial.body.appearance).toMatchObject({ primaryColor: '#7b1fa2', backgroundColor: null, logoAssetId: logo.id });
    });

    it('refuses a primary colour too light for the white card, bad colours, a non-image or foreign logo, and odd navigation', async () => {
      const pdf = await upload(server.academy, operator, PDF, 'application/pdf');
      const studioLogo = await upload(server.studio, studioOperator, PNG, 'image/png');
      for (const [body, pointer] of [
        [{ primaryColor: '#ffeb3b' }, '/primaryColor'],
        [{ primaryColor: 'red' }, '/primaryColor'],
        [{ backgroundColor: '#12345' }, '/backgroundColor'],
        [{ logoAssetId: pdf.id }, '/logoAssetId'],
        [{ logoAssetId: studioLogo.id }, '/logoAssetId'],
        [{ font: 'comic' }, '/font'],
        [{ navigation: [{ label: 'Evil', url: 'javascript:alert(1)' }] }, '/navigation/0/url'],
        [{ navigation: [{ label: 'Elsewhere', url: '//evil.example' }] }, '/navigation/0/url'],
      ] as const) {
        const answer = await call(server.academy, 'PATCH', '/appearance', operator, body);
        expectProblem(answer, 400, 'invalid_argument');
        expect(
          (answer.body.errors as Array<{ pointer: string }>).map((e) => e.pointer),
          JSON.stringify(body),
        ).toContain(pointer);
      }
      expect(contrastRatio('#ffeb3b', '#ffffff')).toBeLessThan(3);
    });

    it('dresses the sign-in page in the logo and colours, allowing exactly the theme’s style by its CSP hash', async () => {
      const logo = await upload(server.academy, operator, PNG, 'image/png');
      await call(server.academy, 'PATCH', '/appearance', operator, { logoAssetId: logo.id, primaryColor: '#7b1fa2', font: 'serif' });
      const url = signInUrl(server.academy, 'academy-member-app');
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(200);
      const html = await res.text();
      const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] as string);
      expect(styles).toHaveLength(2);
      const theme = styles[1] as string;
      expect(theme).toContain('--sg-primary:#7b1fa2');
      expect(theme).toContain(`--sg-on-primary:${textOn('#7b1fa2')}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const css of styles) expect(csp).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
      expect(html).toMatch(/<img class="logo" src="\/assets\/ast_[^"]+" alt="Demo Academy">/);
      // Another school keeps its own look.
      const studio = await (await fetch(signInUrl(server.studio, 'studio-member-app'), { redirect: 'manual' })).text();
      expect(studio.match(/<style>/g)).toHaveLength(1);
      expect(studio).not.toContain('class="logo"');
    });

    it('drops the logo when its asset is deleted', async () => {
      const logo = await upload(server.academy, operator, PNG, 'image/png');
      await call(server.academy, 'PATCH', '/appearance', operator, { logoAssetId: logo.id });
      await call(server.academy, 'DELETE', `/assets/${logo.id}`, operator);
      const after = (await call(server.academy, 'GET', '/appearance', operator)).body.appearance as Look;
      expect(after.logoAssetId).toBeNull();
    });
  });
}

describe.skipIf(!browserAvailable())('browser: the sign-in page wears the school’s appearance', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the logo and the primary colour on the button with readable text (the CSP lets the theme through)', async () => {
    const operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
    const res = await fetch(`${server.academy}${ADMIN_BASE}/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'image/png' },
      body: new Uint8Array(PNG),
    });
    const logo = ((await res.json()) as { asset: { id: string } }).asset;
    await call(server.academy, 'PATCH', '/appearance', operator, { logoAssetId: logo.id, primaryColor: '#2e7d32' });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const url = signInUrl(server.academy, 'academy-member-app');
    await page.goto(url);
    const button = page.getByRole('button', { name: 'Sign in' });
    expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(46, 125, 50)');
    expect(await button.evaluate((b) => getComputedStyle(b).color)).toBe('rgb(255, 255, 255)');
    expect(await page.locator('img.logo').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    await context.close();
  });
});
