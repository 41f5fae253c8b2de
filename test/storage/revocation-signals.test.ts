// Revocation signals between nodes over Redis (storage/revocation-signals.ts): a publish resolves once the
// node's own copy has come back (so the other nodes have been sent theirs; that another node then refuses at
// once is tested over HTTP in test/conformance/revocation-across-nodes.test.ts), and that copy is not told
// again; a node whose Redis is unreachable does not wait for an echo that cannot come.
import { createConnection, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { redisNames } from '../../src/storage/redis-names.js';
import {
  announceChange,
  createRevocationSignals,
  type RevocationSignal,
  type RevocationSignals,
} from '../../src/storage/revocation-signals.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';

const available = await redisAvailable();

/**
 * A proxy in front of Redis that counts the SUBSCRIBE and PUBLISH commands sent on each connection, can cut
 * every connection (Redis going away; its clients reconnect) and refuse new ones (gone for good), and, with
 * `holdAfter`, stops passing Redis's replies on a connection once it has sent that command (it stays pending).
 */
async function subscribeWatchingProxy() {
  const target = new URL(REDIS_URL);
  const connections: Array<{ subscribes: number; publishes: number }> = [];
  const sockets = new Set<Socket>();
  const proxy = {
    port: 0,
    connections,
    holdAfter: null as 'subscribe' | 'publish' | null,
    refuse: false,
    cutAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {},
  };
  const server = createServer((client) => {
    if (proxy.refuse) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    const connection = { subscribes: 0, publishes: 0 };
    connections.push(connection);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      connection.subscribes += chunk.toString('latin1').match(/\r\nsubscribe\r\n/gi)?.length ?? 0;
      connection.publishes += chunk.toString('latin1').match(/\r\npublish\r\n/gi)?.length ?? 0;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      const held =
        (proxy.holdAfter === 'subscribe' && connection.subscribes > 0) || (proxy.holdAfter === 'publish' && connection.publishes > 0);
      if (!held) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as { port: number }).port;
  proxy.close = async () => {
    proxy.cutAll();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting until ${what}`);
}

describe.skipIf(!available)('revocation signals over Redis', () => {
  let store: Store;
  let nodes: RevocationSignals[] = [];
  /** Signals as a PostgreSQL node with REDIS_URL has them (the store only tells the kind apart). */
  const node = (redisUrl = REDIS_URL, prefix = '') => {
    const signals = createRevocationSignals({ ...store, externalWriteVersion: undefined }, redisUrl, redisNames(prefix));
    nodes.push(signals);
    return signals;
  };
  const subscribed = async (...signals: RevocationSignals[]) => {
    for (let i = 0; i < 200 && !signals.every((s) => s.reliable()); i++) await new Promise((r) => setTimeout(r, 10));
    for (const s of signals) expect(s.reliable()).toBe(true);
  };
  beforeAll(() => {
    store = openStore('sqlite::memory:');
  });
  afterAll(async () => {
    for (const signals of nodes) await signals.close();
    nodes = [];
    await store?.close();
  });

  it('tells the publishing node once: its own signal coming back through Redis is not told again', async () => {
    const a = node();
    await subscribed(a);
    const told: RevocationSignal[] = [];
    a.subscribe((signal) => {
      if (signal.kind === 'access_token' && signal.tokenHash === 'own-echo') told.push(signal);
    });
    await a.publish({ kind: 'access_token', tokenHash: 'own-echo' });
    await a.publish({ kind: 'flush' });
    expect(told).toEqual([{ kind: 'access_token', tokenHash: 'own-echo' }]);
  });

  it('reaches the nodes of its own deployment only: a deployment with another REDIS_PREFIX on the same Redis hears none of it', async () => {
    const [a, sameDeployment] = [node(REDIS_URL, 'school-a'), node(REDIS_URL, 'school-a')];
    const [otherDeployment, unprefixed] = [node(REDIS_URL, 'school-b'), node()];
    await subscribed(a, sameDeployment, otherDeployment, unprefixed);
    const heard = (signals: RevocationSignals) => {
      const got: string[] = [];
      signals.subscribe((signal) => {
        if (signal.kind === 'grant' && signal.grantId.startsWith('prefixed-')) got.push(signal.grantId);
      });
      return got;
    };
    const [bySame, byOther, byUnprefixed] = [heard(sameDeployment), heard(otherDeployment), heard(unprefixed)];
    const flushes: RevocationSignal[] = [];
    sameDeployment.subscribe((signal) => signal.kind === 'flush' && flushes.push(signal));
    await a.publish({ kind: 'grant', grantId: 'prefixed-1' });
    // What the CLI announces after a change goes by the same names.
    await announceChange({ ...store, externalWriteVersion: undefined }, REDIS_URL, redisNames('school-a'));
    await otherDeployment.publish({ kind: 'grant', grantId: 'prefixed-2' });
    await unprefixed.publish({ kind: 'grant', grantId: 'prefixed-3' });
    // Each was sent to every subscriber of its channel by now; a few turns more let them all be read.
    for (let i = 0; i < 100 && (flushes.length === 0 || bySame.length === 0); i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(bySame).toEqual(['prefixed-1']);
    expect(flushes.length).toBeGreaterThan(0);
    expect(byOther).toEqual(['prefixed-2']);
    expect(byUnprefixed).toEqual(['prefixed-3']);
  });

  it('subscribes once again after Redis comes back, and a node stopped while that subscription is pending does not end the process', async () => {
    const proxy = await subscribeWatchingProxy();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const signals = node(`redis://127.0.0.1:${proxy.port}`);
      await subscribed(signals);
      // Redis goes away and comes back: the node reconnects and subscribes again, once (ioredis's own
      // resubscription would add a second SUBSCRIBE).
      let seen = proxy.connections.length;
      proxy.cutAll();
      await until(() => !signals.reliable(), 'the node noticed the cut');
      await subscribed(signals);
      await new Promise((r) => setTimeout(r, 50));
      expect(proxy.connections.slice(seen).reduce((n, c) => n + c.subscribes, 0)).toBe(1);

      // Again, with Redis's answer to the SUBSCRIBE held back: the node stops while it is pending.
      proxy.holdAfter = 'subscribe';
      seen = proxy.connections.length;
      proxy.cutAll();
      await until(() => proxy.connections.slice(seen).some((c) => c.subscribes > 0), 'the node subscribed again');
      await new Promise((r) => setTimeout(r, 50));
      expect(signals.reliable()).toBe(false);
      await signals.close();
      await new Promise((r) => setTimeout(r, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await proxy.close();
    }
  });

  it('a publish under way when the link to Redis dies for good gives up: the revoking request is not held until Redis returns', async () => {
    const proxy = await subscribeWatchingProxy();
    try {
      const signals = node(`redis://127.0.0.1:${proxy.port}`);
      await subscribed(signals);
      proxy.holdAfter = 'publish';
      const publishing = signals.publish({ kind: 'grant', grantId: 'in-flight' });
      await until(() => proxy.connections.some((c) => c.publishes > 0), 'the PUBLISH was sent');
      proxy.refuse = true;
      proxy.cutAll();
      // ioredis keeps a command sent on a link that died to send again after the next successful reconnect,
      // and never fails it meanwhile; the publish's own timeout (1 s) ends the wait.
      const outcome = await Promise.race([
        publishing.then(() => 'answered'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
      ]);
      expect(outcome).toBe('answered');
    } finally {
      await proxy.close();
    }
  });

  it('publishes without waiting for an echo when Redis cannot be reached', async () => {
    // Nothing listens on port 9 (discard) here.
    const down = node('redis://127.0.0.1:9');
    expect(down.reliable()).toBe(false);
    const told: RevocationSignal[] = [];
    down.subscribe((signal) => told.push(signal));
    await down.publish({ kind: 'grant', grantId: 'unreachable' });
    expect(told).toContainEqual({ kind: 'grant', grantId: 'unreachable' });
  });
});
