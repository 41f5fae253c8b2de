/// <reference lib="dom" />
// Issue 8, CORS: the endpoints browser-based clients call cross-origin (discovery, JWKS, token, revocation,
// introspection, UserInfo, /mcp, the member GraphQL API, the operator API) answer CORS and its preflight,
// for any origin and without credentials; the pages a person drives never do. In a real browser, a page
// on another origin discovers the server, exchanges a code, and calls UserInfo and /mcp with the token.
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium } from '../helpers/browser.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getCode } from '../helpers/token-flow.js';

const APP_ORIGIN = 'https://app.example';

const OPEN_PATHS: Array<[method: string, path: string]> = [
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['GET', '/.well-known/jwks.json'],
  ['POST', '/api/oauth/token'],
  ['POST', '/api/oauth/revoke'],
  ['POST', '/api/oauth/introspect'],
  ['GET', '/api/oauth/userinfo'],
  ['POST', '/mcp'],
  ['POST', '/member/graphql'],
  ['GET', '/api/admin/v1/courses'],
];
const PAGE_PATHS = ['/oauth/authorize', '/oauth/sign-in', '/oauth/authorize/decision', '/oauth/sign-out'];

function preflight(origin: string, path: string, method: string, headers = 'authorization, content-type') {
  return fetch(`${origin}${path}`, {
    method: 'OPTIONS',
    headers: { origin: APP_ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

describe('CORS (sqlite)', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });
  afterAll(() => server?.close());

  it('answers preflights of every endpoint browser clients call: any origin, no credentials, the methods and headers they need', async () => {
    for (const [method, path] of OPEN_PATHS) {
      const res = await preflight(server.academy, path, method, 'authorization, content-type, mcp-protocol-version');
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
      expect(res.headers.get('access-control-allow-methods'), path).toContain(method);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const header of ['authorization', 'content-type', 'mcp-protocol-version']) expect(allowed, path).toContain(header);
      expect(res.headers.get('access-control-max-age'), path).toBe('600');
    }
  });

  it('exposes the headers a browser client must read (WWW-Authenticate on a 401, the rate-limit headers)', async () => {
    const res = await fetch(`${server.academy}/api/oauth/userinfo`, { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const header of [
      'www-authenticate',
      'mcp-session-id',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ]) {
      expect(exposed).toContain(header);
    }
  });

  it('never answers CORS on the sign-in, consent and sign-out pages, preflight included', async () => {
    for (const path of PAGE_PATHS) {
      const options = await preflight(server.academy, path, 'POST');
      expect(options.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(options.status, path).toBe(404);
      const get = await fetch(`${server.academy}${path}`, { headers: { origin: APP_ORIGIN }, redirect: 'manual' });
      expect(get.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});

const run = browserAvailable();

describe.skipIf(!run)('browser: a web page on another origin completes the flow with fetch (Chromium)', () => {
  let server: DemoServer;
  let browser: Browser;
  let appServer: Server;
  let appOrigin = '';

  beforeAll(async () => {
    server = await startDemoServer('sqlite');
    browser = await launchChromium();
    appServer = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Browser MCP client</title><p>client</p>');
    });
    await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
    const address = appServer.address();
    appOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await browser?.close();
    appServer?.close();
    await server?.close();
  });

  it('discovers, exchanges the code, calls UserInfo and /mcp tools/call, and reads WWW-Authenticate, all cross-origin', async () => {
    const client = DEMO_CLIENTS.academyApp;
    const issued = await getCode(server, client, { who: person('student'), scope: 'openid profile email account:read' });
    const page = await browser.newPage();
    try {
      await page.goto(`${appOrigin}/`);
      const result = await page.evaluate(
        async ({ origin, code, verifier, clientId, redirectUri }) => {
          const resourceMeta = await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json();
          const asMeta = await (
            await fetch(new URL('/.well-known/oauth-authorization-server', resourceMeta.authorization_servers[0]))
          ).json();
          const tokenRes = await fetch(asMeta.token_endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code,
              code_verifier: verifier,
              client_id: clientId,
              redirect_uri: redirectUri,
              resource: origin,
            }),
          });
          const tokens = await tokenRes.json();
          const info = await fetch(asMeta.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } });
          const mcp = await fetch(`${origin}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${tokens.access_token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_enrollments', arguments: {} } }),
          });
          const denied = await fetch(`${origin}/mcp`, {
            method: 'POST',
            headers: {
              authorization: 'Bearer sga_revoked',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          });
          return {
            tokenStatus: tokenRes.status,
            infoStatus: info.status,
            email: (await info.json()).email,
            mcpStatus: mcp.status,
            mcp: await mcp.json(),
            deniedStatus: denied.status,
            challenge: denied.headers.get('www-authenticate'),
          };
        },
        {
          origin: server.academy,
          code: issued.code,
          verifier: issued.verifier,
          clientId: client.clientId,
          redirectUri: client.redirectUri,
        },
      );
      expect(result.tokenStatus).toBe(200);
      expect(result.infoStatus).toBe(200);
      expect(result.email).toBe('student@demo.test');
      expect(result.mcpStatus).toBe(200);
      expect(result.mcp.result.structuredContent.total).toBeGreaterThan(0);
      expect(result.deniedStatus).toBe(401);
      expect(result.challenge).toContain('resource_metadata=');
    } finally {
      await page.close();
    }
  });
});
