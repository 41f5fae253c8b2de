// Issue 8, "Operations": X-Request-Id is taken from a trusted proxy when well formed, else generated; every
// answer carries it, and problem and server_error answers name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';

describe('request ids behind a trusted proxy (sqlite)', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite', { env: { TRUST_PROXY: '127.0.0.1/8' } });
  });
  afterAll(() => server?.close());

  it('keeps a well-formed X-Request-Id from the trusted proxy and replaces a malformed one', async () => {
    const kept = await fetch(`${server.academy}/healthz`, { headers: { 'x-request-id': 'lb-7f3a.42' } });
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a.42');
    for (const bad of ['with space', 'x'.repeat(129), 'quote"s']) {
      const replaced = await fetch(`${server.academy}/healthz`, { headers: { 'x-request-id': bad } });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('names the request id in operator API problems', async () => {
    const res = await fetch(`${server.academy}/api/admin/v1/no-such-thing`, { headers: { 'x-request-id': 'trace-1' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { requestId: string }).requestId).toBe('trace-1');
  });
});

describe('request ids without a trusted proxy (sqlite)', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });
  afterAll(() => server?.close());

  it('ignores X-Request-Id from an untrusted peer, so a client cannot forge log correlation', async () => {
    const res = await fetch(`${server.academy}/healthz`, { headers: { 'x-request-id': 'forged-1' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
