/// <reference lib="dom" />
// A member authorizes an app in a real browser (Chromium), keyboard only, on a phone-sized screen:
// the sign-in and consent pages must work without JavaScript tricks, and the consent page's CSP must
// not block the redirect to the app (INTEROP "Browsers").
import { createServer, type Server } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';

const run = browserAvailable();

describe.skipIf(!run)('browser: sign-in and consent in Chromium', () => {
  let server: DemoServer;
  let browser: Browser;
  let callback: Server;
  let callbackPort = 0;
  const received: string[] = [];

  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    browser = await launchChromium();
    callback = createServer((req, res) => {
      received.push(req.url ?? '');
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Back at the app</title><p>Back at the app</p>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const address = callback.address();
    callbackPort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await server?.close();
  });

  it('signs in and allows from the keyboard alone, then lands on the app with code, state and iss', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(`${server.academy}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'academy-member-app',
      redirect_uri: `http://127.0.0.1:${callbackPort}/callback`,
      scope: 'openid profile account:read',
      resource: server.academy,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'browser-state',
    }).toString();

    const context = await browser.newContext({ viewport: { width: 375, height: 667 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url.href);
    expect(await page.getByLabel('Email').isVisible()).toBe(true);
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    // The page fits a phone: nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // The inline stylesheet is allowed by its hash in the CSP: a mismatch would leave the button unstyled.
    const buttonColour = await page.evaluate(() => getComputedStyle(document.querySelector('button') as Element).backgroundColor);
    expect(buttonColour).toBe('rgb(31, 111, 235)');
    await page.screenshot({ path: `${process.env.SCHOOLGATE_SCREENSHOTS ?? '/tmp'}/schoolgate-sign-in.png` });

    // The e-mail field has focus on arrival; Tab to the password, Enter submits.
    await page.keyboard.type('student@demo.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type('student-pass-123');
    // The sign-in page is already at /oauth/authorize?…, so wait for the consent page itself.
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[value="allow"]');

    const app = await server.store.db
      .selectFrom('member_clients')
      .select('name')
      .where('client_id', '=', 'academy-member-app')
      .executeTakeFirstOrThrow();
    expect(await page.textContent('body')).toContain(app.name);
    await page.screenshot({ path: `${process.env.SCHOOLGATE_SCREENSHOTS ?? '/tmp'}/schoolgate-consent.png` });
    // Tab reaches "Allow" first; Enter submits the form and the browser follows the 303 to the app.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value);
    expect(focused).toBe('allow');
    await Promise.all([page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${callbackPort}/callback`)), page.keyboard.press('Enter')]);

    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).toMatch(/^sgc_/);
    expect(landed.searchParams.get('state')).toBe('browser-state');
    expect(landed.searchParams.get('iss')).toBe(server.academy);
    // Exactly one arrival at the callback (Chromium may also ask the app for /favicon.ico).
    expect(received.filter((u) => u.startsWith('/callback')).length).toBe(1);
    await context.close();
  });
});
