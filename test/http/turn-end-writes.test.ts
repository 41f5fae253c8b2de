// Answers leave at the end of the event loop's turn (src/http/turn-end-writes.ts): after the turn's I/O,
// never inside reply.send, and without changing what any client receives.
import { createHook } from 'node:async_hooks';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAnswersAtTurnEnd } from '../../src/http/turn-end-writes.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';

/** Raw HTTP/1.1 over one connection: every request written at once (pipelined), the replies read until `until` holds. */
function pipelined(port: number, requests: string[], until: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (until(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(requests.join(''));
  });
}

describe('answers written at the end of the turn (bare Fastify with the hook)', () => {
  let app: FastifyInstance;
  let port: number;
  const seen: { duringSend?: boolean; inLaterTurn?: boolean } = {};

  beforeAll(async () => {
    app = Fastify({ logger: false });
    writeAnswersAtTurnEnd(app);
    app.get('/observed', (_request, reply) => {
      reply.send({ ok: true });
      seen.duringSend = reply.raw.headersSent;
      // Queued after the hook's own: by the time it runs, the hook has handed the answer on.
      setImmediate(() => {
        seen.inLaterTurn = reply.raw.headersSent;
      });
      return reply;
    });
    app.get('/n/:n', async (request) => ({ n: Number((request.params as { n: string }).n) }));
    app.get('/slow/:ms', async (request) => {
      const ms = Number((request.params as { ms: string }).ms);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { ms };
    });
    app.get('/stream', (_request, reply) => reply.type('text/plain').send(Readable.from(['one ', 'two ', 'three'])));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });

  afterAll(async () => {
    await app.close();
  });

  it('does not write an answer inside reply.send: it is handed to the socket in the check phase of the turn', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/observed`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen.duringSend).toBe(false);
    expect(seen.inLaterTurn).toBe(true);
  });

  it('answers pipelined requests on one connection in the order they were sent, even when the first finishes last', async () => {
    const requests = ['/slow/40', '/n/1', '/slow/5', '/n/2'].map((path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const text = await pipelined(port, requests, (t) => (t.match(/HTTP\/1\.1 200/g) ?? []).length === 4 && t.endsWith('}'));
    const bodies = text.match(/\{[^}]*\}/g);
    expect(bodies).toEqual(['{"ms":40}', '{"n":1}', '{"ms":5}', '{"n":2}']);
  });

  it('hands on the answers finished in one turn with one immediate, not one each (a spent immediate keeps its arguments)', async () => {
    const paths = Array.from({ length: 20 }, (_, n) => `/n/${n}`);
    const requests = paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    let immediates = 0;
    const counting = createHook({
      init(_id, type) {
        if (type === 'Immediate') immediates += 1;
      },
    }).enable();
    let text: string;
    try {
      text = await pipelined(port, requests, (t) => (t.match(/HTTP\/1\.1 200/g) ?? []).length === 20 && t.endsWith('}'));
    } finally {
      counting.disable();
    }
    expect(text.match(/\{[^}]*\}/g)).toEqual(paths.map((_, n) => `{"n":${n}}`));
    // The twenty were read in one turn or a few; an immediate per answer made twenty.
    expect(immediates).toBeLessThan(5);
  });

  it('gives each of many concurrent requests its own answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, n) => fetch(`http://127.0.0.1:${port}/n/${n}`).then((res) => res.json() as Promise<{ n: number }>)),
    );
    expect(answers.map((a) => a.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
  });

  it('streams a streamed answer whole', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/stream`);
    expect(await res.text()).toBe('one two three');
  });
});

describe('answers written at the end of the turn (the application, SQLite)', () => {
  let server: DemoServer;

  beforeAll(async () => {
    server = await startDemoServer('sqlite');
  });

  afterAll(async () => {
    await server.close();
  });

  it('answers pipelined requests to different endpoints in order, each with its own status and request id', async () => {
    const host = new URL(server.academy).host;
    const paths = ['/.well-known/openid-configuration', '/nowhere', '/.well-known/oauth-authorization-server'];
    const requests = paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    const text = await pipelined(
      server.port,
      requests,
      (t) => (t.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 3 && t.trimEnd().endsWith('}'),
    );
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 404, 200]);
    // Each answer carries its own request id, and the first discovery document comes before the 404.
    expect(new Set([...text.matchAll(/^x-request-id: (.+)$/gim)].map((m) => m[1])).size).toBe(3);
    const first = text.indexOf('"userinfo_endpoint"');
    const notFound = text.indexOf('HTTP/1.1 404');
    expect(first).toBeGreaterThan(-1);
    expect(first).toBeLessThan(notFound);
  });
});
