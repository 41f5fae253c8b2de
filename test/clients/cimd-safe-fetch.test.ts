// SSRF-safe fetch of Client ID Metadata Documents (SPEC 4.2), against real HTTPS servers on loopback.
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyAddress,
  guardConnection,
  isPermittedAddress,
  type SafeFetchOptions,
  safeFetch,
} from '../../src/clients/cimd/safe-fetch.js';
import { CimdError } from '../../src/clients/cimd/types.js';
import { testTls } from '../helpers/tls.js';

interface TestServer {
  port: number;
  hits: string[];
  url(path: string, host?: string): URL;
}

const servers: https.Server[] = [];

async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const { key, cert } = testTls();
  const hits: string[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  return { port, hits, url: (path, host = 'localhost') => new URL(`https://${host}:${port}${path}`) };
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

const OPTIONS: SafeFetchOptions = { allowLoopback: true, timeoutMs: 5000, maxBytes: 5120 };

async function fetchFailure(url: URL, options: SafeFetchOptions = OPTIONS): Promise<CimdError> {
  try {
    await safeFetch(url, options);
  } catch (error) {
    expect(error).toBeInstanceOf(CimdError);
    return error as CimdError;
  }
  throw new Error('expected the fetch to fail');
}

function json(res: ServerResponse, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

describe('address classifier', () => {
  it('refuses private addresses', () => {
    for (const address of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', 'fd00::1', 'fc00::1']) {
      expect(classifyAddress(address), address).toBe('non-public');
    }
  });

  it('refuses link-local, cloud metadata, multicast, reserved and unspecified addresses', () => {
    for (const address of [
      '169.254.169.254',
      'fe80::1',
      '224.0.0.1',
      'ff02::1',
      '240.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::',
      '192.0.2.1',
    ]) {
      expect(classifyAddress(address), address).toBe('non-public');
    }
  });

  it('unwraps IPv4-mapped IPv6 before judging', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:10.0.0.1')).toBe('non-public');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
  });

  it('refuses IPv6 prefixes that embed or tunnel other addresses', () => {
    for (const address of ['::7f00:1', '64:ff9b::a00:1', '2002:a00:1::1', '2001::1', '100::1']) {
      expect(classifyAddress(address), address).toBe('non-public');
    }
  });

  it('classifies loopback separately so a test switch can permit it', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('127.8.9.10')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(isPermittedAddress('127.0.0.1', false)).toBe(false);
    expect(isPermittedAddress('127.0.0.1', true)).toBe(true);
    expect(isPermittedAddress('10.0.0.1', true)).toBe(false);
  });

  it('accepts public unicast addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2001:4860:4860::8888']) {
      expect(classifyAddress(address), address).toBe('public');
    }
  });

  it('refuses text that is not a strict IP address', () => {
    for (const address of ['', 'localhost', '127.1', '0x7f000001', '2130706433']) {
      expect(classifyAddress(address), address).toBe('non-public');
    }
  });
});

describe('connect-time address check', () => {
  it('refuses a socket that connected to a non-permitted address, whatever DNS said', async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const check = (allowLoopback: boolean) =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          let refused = false;
          guardConnection(socket, allowLoopback, () => {
            refused = true;
          });
          socket.once('connect', () => {
            socket.destroy();
            resolve(refused);
          });
        });
      expect(await check(false)).toBe(true);
      expect(await check(true)).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('safeFetch', () => {
  it('fetches a JSON document over HTTPS, sending Accept: application/json and no cookies or credentials', async () => {
    let seen: IncomingMessage | undefined;
    const server = await startServer((req, res) => {
      seen = req;
      json(res, '{"ok":true}', { 'cache-control': 'max-age=60', 'set-cookie': 'a=b' });
    });
    const response = await safeFetch(server.url('/client.json'), OPTIONS);
    expect(response.status).toBe(200);
    expect(response.body).toBe('{"ok":true}');
    expect(response.headers['cache-control']).toBe('max-age=60');
    expect(seen?.method).toBe('GET');
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers.cookie).toBeUndefined();
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('accepts +json media types with parameters', async () => {
    const server = await startServer((_req, res) => json(res, '{}', { 'content-type': 'application/client-metadata+json; charset=utf-8' }));
    expect((await safeFetch(server.url('/c.json'), OPTIONS)).body).toBe('{}');
  });

  it('does not follow redirects', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/moved.json') return json(res, '{}');
      res.writeHead(302, { location: '/moved.json' });
      res.end();
    });
    const error = await fetchFailure(server.url('/client.json'));
    expect(error.reason).toBe('fetch_failed');
    expect(error.message).toMatch(/could not be fetched: redirects are not followed/);
    expect(server.hits).toEqual(['/client.json']);
  });

  it('refuses statuses other than 200', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    });
    expect((await fetchFailure(server.url('/client.json'))).message).toMatch(/HTTP status 404/);
  });

  it('refuses a response that is not JSON', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html></html>');
    });
    expect((await fetchFailure(server.url('/client.json'))).message).toMatch(/not JSON/);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '9000' });
      res.write('{"a":"');
      // The rest never comes: only the header can have caused the refusal.
    });
    const error = await fetchFailure(server.url('/client.json'));
    expect(error.message).toMatch(/could not be fetched: response larger than 5120 bytes/);
  });

  it('stops reading past 5120 bytes', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"pad":"${'x'.repeat(6000)}`);
      // The response is never ended: a reader that waited for the end would time out instead.
    });
    const started = Date.now();
    const error = await fetchFailure(server.url('/client.json'));
    expect(error.message).toMatch(/response larger than 5120 bytes/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('accepts a body of exactly maxBytes', async () => {
    const body = `{"pad":"${'x'.repeat(5120 - 10)}"}`;
    expect(body.length).toBe(5120);
    const server = await startServer((_req, res) => json(res, body));
    expect((await safeFetch(server.url('/client.json'), OPTIONS)).body).toBe(body);
  });

  it('times out a server that never answers', async () => {
    const server = await startServer(() => {
      // Accepts the request and never responds.
    });
    const started = Date.now();
    const error = await fetchFailure(server.url('/client.json'), { ...OPTIONS, timeoutMs: 300 });
    expect(error.message).toMatch(/no complete answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('times out a body that trickles in (the budget covers the body too)', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    expect((await fetchFailure(server.url('/client.json'), { ...OPTIONS, timeoutMs: 400 })).message).toMatch(/no complete answer/);
  });

  it('refuses a loopback address when loopback is not allowed', async () => {
    const server = await startServer((_req, res) => json(res, '{}'));
    const options = { ...OPTIONS, allowLoopback: false };
    expect((await fetchFailure(server.url('/client.json'), options)).message).toMatch(/the host resolves to a non-public address/);
    expect((await fetchFailure(server.url('/client.json', '127.0.0.1'), options)).message).toMatch(/non-public address/);
    expect((await fetchFailure(server.url('/client.json', '[::1]'), options)).message).toMatch(/non-public address/);
    expect(server.hits).toEqual([]);
  });

  it('connects to an IP literal host when loopback is allowed', async () => {
    const server = await startServer((_req, res) => json(res, '{"ip":true}'));
    expect((await safeFetch(server.url('/client.json', '127.0.0.1'), OPTIONS)).body).toBe('{"ip":true}');
  });

  it('refuses a certificate that does not match the host', async () => {
    // The test certificate names localhost, 127.0.0.1 and ::1 only.
    const server = await startServer((_req, res) => json(res, '{}'));
    const error = await fetchFailure(server.url('/client.json', '127.0.0.2'));
    expect(error.message).toMatch(/TLS certificate/);
  });

  it('reports a refused connection without internal detail', async () => {
    const server = await startServer((_req, res) => json(res, '{}'));
    const url = server.url('/client.json');
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const error = await fetchFailure(url);
    expect(error.message).toBe(`The document at ${url.href} could not be fetched: the connection was refused.`);
  });

  it('refuses a compressed response it did not ask for', async () => {
    const server = await startServer((_req, res) => json(res, '{}', { 'content-encoding': 'gzip' }));
    expect((await fetchFailure(server.url('/client.json'))).message).toMatch(/compressed/);
  });

  it('refuses a body that is not UTF-8', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.from([0x7b, 0xff, 0x7d]));
    });
    expect((await fetchFailure(server.url('/client.json'))).message).toMatch(/UTF-8/);
  });

  it('refuses a connection closed mid-body', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => req.socket.destroy(), 20);
    });
    expect((await fetchFailure(server.url('/client.json'))).message).toMatch(/closed before the document was received/);
  });
});
