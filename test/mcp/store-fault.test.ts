// SPEC 1, 7 and issue 4 section 3 (fault injection): when the bearer check cannot reach a verdict because
// the store is down or hangs, /mcp answers variant A with 503 temporarily_unavailable, Retry-After and no
// WWW-Authenticate, variant B with a 500 JSON-RPC internal error, never a 401; and it recovers by itself.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { skipDialect } from '../helpers/dialects.js';
import { mcpPost, toolCall } from '../helpers/mcp.js';
import { person } from '../helpers/person.js';
import { type ProxiedDemoServer, startProxiedDemoServer } from '../helpers/proxied-demo-server.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

describe.skipIf(skipDialect('postgres'))('/mcp with the store taken away (postgres through a TCP proxy)', () => {
  let server: ProxiedDemoServer;
  let academyToken: string;
  let studioToken: string;
  beforeAll(async () => {
    server = await startProxiedDemoServer();
    const student = person('student');
    academyToken = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: student })).access_token;
    studioToken = (await getTokens(server, DEMO_CLIENTS.studioApp, { scope: 'openid account:read', who: student })).access_token;
  });
  afterEach(() => {
    server?.proxy.resume();
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (origin: string, token: string) => mcpPost(origin, toolCall('list_my_enrollments', {}, 42), { token });

  it('works while the store answers', async () => {
    const academy = await call(server.academy, academyToken);
    expect(academy.status).toBe(200);
    expect(academy.body).toMatchObject({ id: 42, result: { structuredContent: { total: 4 } } });
    expect((await call(server.studio, studioToken)).status).toBe(200);
  });

  it('variant A: 503 temporarily_unavailable with Retry-After and no WWW-Authenticate; recovers on resume', async () => {
    await server.proxy.pause('refuse');
    const down = await call(server.academy, academyToken);
    expect(down.status).toBe(503);
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(down.headers.get('www-authenticate')).toBeNull();
    expect(down.body).toMatchObject({ error: 'temporarily_unavailable' });

    server.proxy.resume();
    const up = await call(server.academy, academyToken);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ result: { structuredContent: { total: 4 } } });
  });

  it('variant B: 500 with a JSON-RPC internal error for the request id, never a 401; recovers on resume', async () => {
    await server.proxy.pause('refuse');
    const down = await call(server.studio, studioToken);
    expect(down.status).toBe(500);
    expect(down.headers.get('www-authenticate')).toBeNull();
    expect(down.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 }, id: 42 });

    server.proxy.resume();
    expect((await call(server.studio, studioToken)).status).toBe(200);
  });

  it('treats a store that hangs like one that is down, within the 2 s budget', async () => {
    await server.proxy.pause('stall');
    const started = Date.now();
    const down = await call(server.academy, academyToken);
    expect(down.status).toBe(503);
    expect(down.headers.get('www-authenticate')).toBeNull();
    expect(Date.now() - started).toBeLessThan(4000);

    server.proxy.resume();
    expect((await call(server.academy, academyToken)).status).toBe(200);
  });

  it('still serves anonymous initialize without the store (no token, no verdict needed)', async () => {
    await server.proxy.pause('refuse');
    const answer = await mcpPost(server.academy, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(answer.status).toBe(200);
  });
});
