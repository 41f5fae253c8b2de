// Resolution of Client ID Metadata Document clients: host policy, cache, single flight (SPEC 4.2).
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheLifetimeMs, type CimdPolicy, createCimdResolver } from '../../src/clients/cimd/resolver.js';
import { CimdError } from '../../src/clients/cimd/types.js';
import type { Clock } from '../../src/kernel/clock.js';
import { testTls } from '../helpers/tls.js';

interface TestServer {
  port: number;
  hits: string[];
  clientId(path?: string): string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, clientId: string) => void;

const servers: https.Server[] = [];

async function startServer(handler: Handler): Promise<TestServer> {
  const { key, cert } = testTls();
  const hits: string[] = [];
  let port = 0;
  const server = https.createServer({ key, cert }, (req, res) => {
    hits.push(req.url ?? '');
    handler(req, res, `https://localhost:${port}${req.url ?? ''}`);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, resolve));
  port = (server.address() as AddressInfo).port;
  return { port, hits, clientId: (path = '/client.json') => `https://localhost:${port}${path}` };
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

class FakeClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

const POLICY: CimdPolicy = {
  allowlist: ['localhost'],
  openRegistration: false,
  reviewedHosts: [],
  allowLoopback: true,
  timeoutMs: 5000,
  maxBytes: 5120,
};

function documentFor(clientId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: clientId,
    client_name: 'Test CLI',
    redirect_uris: ['http://127.0.0.1:53682/callback', `${new URL(clientId).origin}/callback`],
    ...extra,
  });
}

function serveDocument(headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Handler {
  return (_req, res, clientId) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(documentFor(clientId, extra));
  };
}

async function failure(promise: Promise<unknown>): Promise<CimdError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CimdError);
    return error as CimdError;
  }
  throw new Error('expected a CimdError');
}

const SECOND = 1000;

describe('CIMD resolver', () => {
  it('resolves a valid document from an allowlisted host', async () => {
    const server = await startServer(serveDocument({}, { scope: 'openid courses:read' }));
    const resolver = createCimdResolver(POLICY, new FakeClock());
    const clientId = server.clientId();
    expect(await resolver.resolve(clientId)).toEqual({
      clientId,
      host: 'localhost',
      clientName: 'Test CLI',
      redirectUris: ['http://127.0.0.1:53682/callback', `https://localhost:${server.port}/callback`],
      tokenEndpointAuthMethod: 'none',
      scope: 'openid courses:read',
      reviewed: false,
    });
  });

  it('marks clients from reviewed hosts as reviewed', async () => {
    const server = await startServer(serveDocument());
    const resolver = createCimdResolver({ ...POLICY, reviewedHosts: ['localhost'] }, new FakeClock());
    expect((await resolver.resolve(server.clientId())).reviewed).toBe(true);
  });

  it('tells which client_ids are CIMD URLs', () => {
    const resolver = createCimdResolver(POLICY, new FakeClock());
    expect(resolver.isCimdClientId('https://app.example.com/client.json')).toBe(true);
    expect(resolver.isCimdClientId('vendor-platform-id')).toBe(false);
    expect(resolver.isCimdClientId('http://app.example.com/client.json')).toBe(false);
  });

  it('refuses a host outside the allowlist without any network access', async () => {
    const server = await startServer(serveDocument());
    const resolver = createCimdResolver({ ...POLICY, allowlist: ['tools.example.com'] }, new FakeClock());
    const error = await failure(resolver.resolve(server.clientId()));
    expect(error.reason).toBe('host_not_allowed');
    expect(error.message).toMatch(/host 'localhost' is not allowed/);
    expect(error.message).toMatch(/pre-registered vendor platform or contact support/);
    expect(server.hits).toEqual([]);
  });

  it('matches the allowlist by exact hostname, not by suffix', async () => {
    const resolver = createCimdResolver({ ...POLICY, allowlist: ['example.com'] }, new FakeClock());
    expect((await failure(resolver.resolve('https://evil-example.com/c.json'))).reason).toBe('host_not_allowed');
    expect((await failure(resolver.resolve('https://sub.example.com/c.json'))).reason).toBe('host_not_allowed');
  });

  it('resolves any host under open registration', async () => {
    const server = await startServer(serveDocument());
    const resolver = createCimdResolver({ ...POLICY, allowlist: [], openRegistration: true }, new FakeClock());
    expect((await resolver.resolve(server.clientId())).host).toBe('localhost');
  });

  it('refuses a loopback address when loopback is not allowed', async () => {
    const server = await startServer(serveDocument());
    const resolver = createCimdResolver({ ...POLICY, allowLoopback: false }, new FakeClock());
    const error = await failure(resolver.resolve(server.clientId()));
    expect(error.reason).toBe('fetch_failed');
    expect(error.message).toMatch(/the host resolves to a non-public address/);
    expect(server.hits).toEqual([]);
  });

  it('refuses invalid client_id URLs before any policy or network step', async () => {
    const resolver = createCimdResolver({ ...POLICY, openRegistration: true }, new FakeClock());
    for (const clientId of [
      'http://localhost/client.json',
      'https://localhost/a/../client.json',
      'https://localhost/client.json#frag',
      'https://user:pw@localhost/client.json',
      'https://localhost/',
      'https://localhost/client.json?x=1',
    ]) {
      expect((await failure(resolver.resolve(clientId))).reason, clientId).toBe('invalid_client_id_url');
    }
  });

  it('refuses a document whose client_id differs from its URL', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(documentFor(`https://localhost:${server.port}/other.json`));
    });
    const error = await failure(createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('invalid_document');
    expect(error.message).toMatch(/client_id/);
  });

  it('refuses a redirect_uri on another host', async () => {
    const server = await startServer(serveDocument({}, { redirect_uris: ['https://elsewhere.example.net/callback'] }));
    const error = await failure(createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('invalid_document');
    expect(error.message).toMatch(/redirect_uris\[0\]/);
  });

  it('accepts a loopback redirect_uri', async () => {
    const server = await startServer(serveDocument({}, { redirect_uris: ['http://[::1]:8123/cb', 'http://localhost/cb'] }));
    const document = await createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId());
    expect(document.redirectUris).toEqual(['http://[::1]:8123/cb', 'http://localhost/cb']);
  });

  it('refuses a shared-secret auth method', async () => {
    const server = await startServer(serveDocument({}, { token_endpoint_auth_method: 'client_secret_basic' }));
    const error = await failure(createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('invalid_document');
    expect(error.message).toMatch(/token_endpoint_auth_method/);
  });

  it('does not follow redirects', async () => {
    const server = await startServer((req, res, clientId) => {
      if (req.url === '/real.json') return serveDocument()(req, res, clientId);
      res.writeHead(301, { location: '/real.json' });
      res.end();
    });
    const error = await failure(createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('fetch_failed');
    expect(error.message).toMatch(/redirects are not followed/);
    expect(server.hits).toEqual(['/client.json']);
  });

  it('stops reading past 5120 bytes', async () => {
    const server = await startServer(serveDocument({}, { padding: 'x'.repeat(6000) }));
    const error = await failure(createCimdResolver(POLICY, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('fetch_failed');
    expect(error.message).toMatch(/response larger than 5120 bytes/);
  });

  it('times out a server that never answers', async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    const error = await failure(createCimdResolver({ ...POLICY, timeoutMs: 250 }, new FakeClock()).resolve(server.clientId()));
    expect(error.reason).toBe('fetch_failed');
    expect(error.message).toMatch(/no complete answer within 250 ms/);
  });

  it('caches by max-age clamped to 30 s..1 day', async () => {
    const cases: Array<{ header: Record<string, string>; fresh: number; stale: number }> = [
      { header: { 'cache-control': 'max-age=120' }, fresh: 119 * SECOND, stale: 121 * SECOND },
      { header: { 'cache-control': 'public, max-age=5' }, fresh: 29 * SECOND, stale: 31 * SECOND },
      { header: { 'cache-control': 'no-store' }, fresh: 29 * SECOND, stale: 31 * SECOND },
      { header: { 'cache-control': 'max-age=31536000' }, fresh: 86_399 * SECOND, stale: 86_401 * SECOND },
      { header: {}, fresh: 299 * SECOND, stale: 301 * SECOND },
    ];
    for (const { header, fresh, stale } of cases) {
      const server = await startServer(serveDocument(header));
      const clock = new FakeClock();
      const resolver = createCimdResolver(POLICY, clock);
      await resolver.resolve(server.clientId());
      clock.advance(fresh);
      await resolver.resolve(server.clientId());
      expect(server.hits.length, `${JSON.stringify(header)} still fresh`).toBe(1);
      clock.advance(stale - fresh);
      await resolver.resolve(server.clientId());
      expect(server.hits.length, `${JSON.stringify(header)} stale`).toBe(2);
    }
  });

  it('caches per URL', async () => {
    const server = await startServer(serveDocument());
    const resolver = createCimdResolver(POLICY, new FakeClock());
    await resolver.resolve(server.clientId('/a.json'));
    await resolver.resolve(server.clientId('/b.json'));
    await resolver.resolve(server.clientId('/a.json'));
    expect(server.hits).toEqual(['/a.json', '/b.json']);
  });

  it('computes lifetimes from Cache-Control and Expires', () => {
    const now = Date.UTC(2026, 0, 1);
    const date = new Date(now).toUTCString();
    expect(cacheLifetimeMs({ 'cache-control': 'max-age=600' }, now)).toBe(600 * SECOND);
    expect(cacheLifetimeMs({ 'cache-control': 'no-cache' }, now)).toBe(30 * SECOND);
    expect(cacheLifetimeMs({ 'cache-control': 'max-age=banana' }, now)).toBe(30 * SECOND);
    expect(cacheLifetimeMs({ date, expires: new Date(now + 3600 * SECOND).toUTCString() }, now)).toBe(3600 * SECOND);
    expect(cacheLifetimeMs({ expires: new Date(now + 600 * SECOND).toUTCString() }, now)).toBe(600 * SECOND);
    expect(cacheLifetimeMs({ date, expires: '0' }, now)).toBe(30 * SECOND);
    expect(cacheLifetimeMs({ date, expires: new Date(now + 9 * 86_400 * SECOND).toUTCString() }, now)).toBe(86_400 * SECOND);
    // max-age wins over Expires (RFC 9111 5.3).
    expect(cacheLifetimeMs({ 'cache-control': 'max-age=60', expires: new Date(now + 3600 * SECOND).toUTCString() }, now)).toBe(60 * SECOND);
    expect(cacheLifetimeMs({}, now)).toBe(300 * SECOND);
  });

  it('honours Expires against the server Date', async () => {
    const clock = new FakeClock();
    const server = await startServer((req, res, clientId) => {
      const date = new Date(clock.now());
      serveDocument({ date: date.toUTCString(), expires: new Date(clock.now() + 120 * SECOND).toUTCString() })(req, res, clientId);
    });
    const resolver = createCimdResolver(POLICY, clock);
    await resolver.resolve(server.clientId());
    clock.advance(119 * SECOND);
    await resolver.resolve(server.clientId());
    expect(server.hits.length).toBe(1);
    clock.advance(2 * SECOND);
    await resolver.resolve(server.clientId());
    expect(server.hits.length).toBe(2);
  });

  it('never caches errors', async () => {
    let answer: 'error' | 'invalid' | 'valid' = 'error';
    const server = await startServer((req, res, clientId) => {
      if (answer === 'error') {
        res.writeHead(500, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' });
        res.end('{}');
      } else if (answer === 'invalid') {
        serveDocument({ 'cache-control': 'max-age=3600' }, { client_secret: 'x' })(req, res, clientId);
      } else {
        serveDocument()(req, res, clientId);
      }
    });
    const resolver = createCimdResolver(POLICY, new FakeClock());
    expect((await failure(resolver.resolve(server.clientId()))).reason).toBe('fetch_failed');
    answer = 'invalid';
    expect((await failure(resolver.resolve(server.clientId()))).reason).toBe('invalid_document');
    answer = 'valid';
    expect((await resolver.resolve(server.clientId())).clientName).toBe('Test CLI');
    expect(server.hits.length).toBe(3);
  });

  it('one fetch in flight per URL', async () => {
    const server = await startServer((req, res, clientId) => {
      setTimeout(() => serveDocument()(req, res, clientId), 150);
    });
    const resolver = createCimdResolver(POLICY, new FakeClock());
    const results = await Promise.all(Array.from({ length: 8 }, () => resolver.resolve(server.clientId())));
    expect(server.hits.length).toBe(1);
    for (const result of results) expect(result).toBe(results[0]);
  });

  it('shares a failure among concurrent callers and retries afterwards', async () => {
    let fail = true;
    const server = await startServer((req, res, clientId) => {
      setTimeout(() => {
        if (!fail) return serveDocument()(req, res, clientId);
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{}');
      }, 100);
    });
    const resolver = createCimdResolver(POLICY, new FakeClock());
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => resolver.resolve(server.clientId())));
    expect(outcomes.every((outcome) => outcome.status === 'rejected' && outcome.reason instanceof CimdError)).toBe(true);
    expect(server.hits.length).toBe(1);
    fail = false;
    await resolver.resolve(server.clientId());
    expect(server.hits.length).toBe(2);
  });

  it('throws nothing but CimdError', async () => {
    const resolver = createCimdResolver({ ...POLICY, openRegistration: true }, new FakeClock());
    const inputs: unknown[] = [
      '',
      'https://[',
      'https://%zz/x',
      `https://localhost/${'%'.repeat(10)}`,
      undefined,
      42,
      ['https://localhost/a.json'],
    ];
    for (const input of inputs) {
      const error = await failure(resolver.resolve(input as string));
      expect(['invalid_client_id_url', 'fetch_failed']).toContain(error.reason);
    }
  });
});
