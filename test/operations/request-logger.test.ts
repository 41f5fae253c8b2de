// The request's logger (observability/request-logger.ts): a child bound to the request id, made only when
// the request logs. Over real HTTP with Fastify's own pino writing to a stream read back here.
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { LazyRequestLogger, lazyRequestLogger } from '../../src/observability/request-logger.js';

describe('the request logger', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: FastifyInstance;
  let origin: string;
  let children: MockInstance<FastifyBaseLogger['child']>;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    let next = 0;
    app = Fastify({
      logger: { level: 'info', stream },
      disableRequestLogging: true,
      genReqId: () => `req-${++next}`,
      childLoggerFactory: lazyRequestLogger,
    });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn({ thing: 1 }, 'hello');
      request.log.info('again');
      request.log.debug('below the level');
      request.log.child({ part: 'inner' }).info('nested');
      return { level: request.log.level };
    });
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
    // The children made of the application's logger: one per request that logs, none for the others.
    children = vi.spyOn(app.log, 'child');
  });
  afterAll(() => app?.close());

  it('a request that logs nothing makes no child logger', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${origin}/quiet`)).status).toBe(200);
    expect(children).not.toHaveBeenCalled();
    expect(lines.filter((line) => 'reqId' in line)).toEqual([]);
  });

  it('a request that logs writes every line with its request id, at the parent level, children keeping it', async () => {
    const res = await fetch(`${origin}/loud`);
    expect(await res.json()).toEqual({ level: 'info' });
    const own = lines.filter((line) => line.reqId === 'req-4');
    expect(own.map((line) => [line.level, line.msg])).toEqual([
      [40, 'hello'],
      [30, 'again'],
      [30, 'nested'],
    ]);
    expect(own[0]).toMatchObject({ thing: 1 });
    expect(own[2]).toMatchObject({ part: 'inner' });
    // The request's own child, then the one it asked for (pino's children inherit the spied method).
    expect(children.mock.calls.map(([bindings]) => bindings)).toEqual([{ reqId: 'req-4' }, { part: 'inner' }]);
  });

  it('makes the child once, whatever the request logs', () => {
    const parent = Fastify({ logger: { level: 'warn' } }).log;
    const child = vi.spyOn(parent, 'child');
    const lazy = new LazyRequestLogger(parent, { reqId: 'r' }, {});
    expect(child).not.toHaveBeenCalled();
    lazy.info('dropped');
    lazy.error('kept');
    expect(lazy.level).toBe('warn');
    expect(child).toHaveBeenCalledTimes(1);
    lazy.level = 'error';
    expect(lazy.level).toBe('error');
    expect(parent.level).toBe('warn');
  });
});
