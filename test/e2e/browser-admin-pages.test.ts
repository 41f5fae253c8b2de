/// <reference lib="dom" />
// CONTRACT 7 in a real browser (Chromium, JavaScript off): the owner and a student drive the admin and
// account pages from the keyboard, at desktop and phone widths. Screenshots of every page land in
// test-results/ for a reviewer to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, FULL_SCOPE, getTokens, userInfo } from '../helpers/token-flow.js';

const run = browserAvailable();
const SHOTS = join(process.cwd(), 'test-results', 'admin-pages');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 667 };
const PAGES = [
  ['admin', '/admin'],
  ['beta', '/admin/settings/beta'],
  ['oauth-applications', '/admin/developers/oauth-applications'],
  ['connections', '/admin/connections'],
  ['audit', '/admin/audit'],
  ['account-apps', '/account/apps'],
] as const;

/** Signs in on the form a page shows without a session, from the keyboard alone. */
async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  // The form is shown at the page's own URL, so wait for the navigation the post starts.
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
}

/** Moves focus with Tab until the element matching `selector` has it (keyboard-only use); fails after 80 presses. */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (
      await page
        .locator(selector)
        .evaluate((el) => el === document.activeElement)
        .catch(() => false)
    )
      return;
  }
  throw new Error(`could not reach ${selector} with Tab`);
}

describe.skipIf(!run)('browser: admin and account pages in Chromium', () => {
  let server: DemoServer;
  let browser: Browser;
  let owner: BrowserContext;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startDemoServer('sqlite');
    browser = await launchChromium();
    owner = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin`);
    await signIn(page, 'owner@demo.test', 'owner-pass-123');
    expect(new URL(page.url()).pathname).toBe('/admin');
    await page.close();
  });
  /** Focuses the app's "Revoke" button (its label names the app) and presses Enter; waits for the notice. */
  async function revokeFromKeyboard(page: Page, clientId: string): Promise<void> {
    const app = await server.store.db
      .selectFrom('member_clients')
      .select('name')
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    await page.getByRole('button', { name: `Revoke ${app.name}` }).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.notice');
  }

  afterAll(async () => {
    await owner?.close();
    await browser?.close();
    await server?.close();
  });

  it('renders every page at desktop and phone width, without overflowing a phone, and writes screenshots', async () => {
    const page = await owner.newPage();
    for (const [name, path] of PAGES) {
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        const response = await page.goto(`${server.academy}${path}`);
        expect(response?.status(), path).toBe(200);
        // The stylesheet is allowed by its hash: a mismatch would leave the page unstyled.
        const width = await page.evaluate(() => getComputedStyle(document.querySelector('main') as Element).maxWidth);
        expect(width).toBe('1024px');
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} at ${size}`).toBeLessThanOrEqual(viewport.width);
        await page.screenshot({ path: join(SHOTS, `${name}-${size}.png`), fullPage: true });
      }
    }
    await page.close();
  });

  it('labels every control of the forms', async () => {
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin/developers/oauth-applications`);
    for (const label of ['Name', 'Redirect URIs', 'Client type'])
      expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    for (const scope of ['openid', 'profile', 'email', 'account:read', 'account:write'])
      expect(await page.getByLabel(scope).count(), scope).toBe(1);
    expect(await page.getByRole('button', { name: 'Create application' }).count()).toBe(1);
    await page.goto(`${server.academy}/admin/settings/beta`);
    expect(await page.getByLabel('MCP connections').isChecked()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(1);
    await page.goto(`${server.academy}/admin`);
    expect(await page.getByRole('img', { name: /Revenue per day/ }).count()).toBe(1);
    await page.close();
  });

  it('creates an application from the keyboard alone and shows its secret once', async () => {
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin/developers/oauth-applications`);
    await tabTo(page, '#app-name');
    await page.keyboard.type('Keyboard App');
    await page.keyboard.press('Tab');
    await page.keyboard.type('https://keyboard.example/callback');
    await page.keyboard.press('Tab');
    // A select changes with the arrow keys: Public is first, Confidential second.
    await page.keyboard.press('ArrowDown');
    await tabTo(page, 'button:has-text("Create application")');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#client-secret');
    const secret = await page.textContent('#client-secret');
    expect(secret).toMatch(/^sgs_/);
    await page.screenshot({ path: join(SHOTS, 'oauth-applications-secret-shown-desktop.png'), fullPage: true });
    await page.reload();
    expect(await page.locator('#client-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret as string);
    await page.close();
  });

  it('turns MCP connections off and on from the keyboard; while off, the Developers page is 404 and gone from the navigation', async () => {
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin/settings/beta`);
    await tabTo(page, '#mcp-connections');
    await page.keyboard.press('Space');
    expect(await page.getByLabel('MCP connections').isChecked()).toBe(false);
    await tabTo(page, 'button:has-text("Save")');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(await page.textContent('.notice')).toContain('MCP connections are off');
    expect(await page.locator('nav a', { hasText: 'OAuth applications' }).count()).toBe(0);
    expect((await page.goto(`${server.academy}/admin/developers/oauth-applications`))?.status()).toBe(404);
    await page.goto(`${server.academy}/admin/settings/beta`);
    await page.getByLabel('MCP connections').check();
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save' }).click()]);
    expect(await page.getByLabel('MCP connections').isChecked()).toBe(true);
    expect((await page.goto(`${server.academy}/admin/developers/oauth-applications`))?.status()).toBe(200);
    await page.close();
  });

  it('filters the audit log with its form and pages to older events', async () => {
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin/audit`);
    await page.getByLabel(/^Action/).fill('sign_in.');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(new URL(page.url()).searchParams.get('action')).toBe('sign_in.');
    const kinds = await page.locator('tbody th code').allInnerTexts();
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds) expect(kind.startsWith('sign_in.')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'audit-filtered-desktop.png'), fullPage: true });
    await page.close();
  });

  it('revokes an app from the connections page, and the app’s next API call gets 401', async () => {
    const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: person('student'), scope: FULL_SCOPE });
    expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
    const page = await owner.newPage();
    await page.goto(`${server.academy}/admin/connections`);
    await revokeFromKeyboard(page, 'academy-member-app');
    expect(await page.textContent('.notice')).toContain('Revoked');
    expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
    await page.close();
  });

  it('refuses a form whose CSRF field was tampered with (403), even in a browser with the right cookies', async () => {
    const scripted = await browser.newContext({ viewport: DESKTOP, storageState: await owner.storageState() });
    const page = await scripted.newPage();
    await page.goto(`${server.academy}/admin/settings/beta`);
    await page.evaluate(() => {
      (document.querySelector('form[action="/admin/settings/beta"] input[name="csrf_token"]') as HTMLInputElement).value = 'forged';
    });
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save' }).click()]);
    expect(response?.status()).toBe(403);
    await scripted.close();
  });

  it('lets a student see and revoke their own app at /account/apps, and refuses them /admin', async () => {
    const student = person('student');
    const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { who: student, scope: FULL_SCOPE });
    expect((await userInfo(server.academy, tokens.access_token)).status).toBe(200);
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.academy}/account/apps`);
    await signIn(page, 'student@demo.test', 'student-pass-123');
    expect(new URL(page.url()).pathname).toBe('/account/apps');
    expect(await page.textContent('main')).toContain('your profile (name, email)');
    await page.screenshot({ path: join(SHOTS, 'account-apps-student-phone.png'), fullPage: true });
    await revokeFromKeyboard(page, 'academy-member-app');
    expect((await userInfo(server.academy, tokens.access_token)).status).toBe(401);
    const admin = await page.goto(`${server.academy}/admin`);
    expect(admin?.status()).toBe(403);
    expect(await page.textContent('main')).toContain('Only the owner and admins');
    await context.close();
  });
});
