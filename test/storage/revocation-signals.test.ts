// Revocation signals between nodes over Redis (storage/revocation-signals.ts): a publish resolves only once
// the signal has reached the other nodes, so a node that then answers its client cannot be overtaken by
// that client at another node (Redis answers PUBLISH before it has written to every subscriber); a node
// tells itself once, not again when its own signal comes back; a node whose Redis is unreachable does not
// wait for an echo that cannot come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/storage/connect.js';
import { createRevocationSignals, type RevocationSignal, type RevocationSignals } from '../../src/storage/revocation-signals.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';

const available = await redisAvailable();

describe.skipIf(!available)('revocation signals over Redis', () => {
  let store: Store;
  let nodes: RevocationSignals[] = [];
  /** Signals as a PostgreSQL node with REDIS_URL has them (the store only tells the kind apart). */
  const node = (redisUrl = REDIS_URL) => {
    const signals = createRevocationSignals({ ...store, externalWriteVersion: undefined }, redisUrl);
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

  it('resolves a publish only once the other node has heard it, every time', async () => {
    const [a, b] = [node(), node()] as [RevocationSignals, RevocationSignals];
    await subscribed(a, b);
    const heard: string[] = [];
    b.subscribe((signal) => {
      if (signal.kind === 'grant' && signal.grantId.startsWith('echo-test-')) heard.push(signal.grantId);
    });
    for (let i = 0; i < 50; i++) {
      await a.publish({ kind: 'grant', grantId: `echo-test-${i}` });
      // Checked right after the publish, with no turn of the event loop in between.
      expect(heard.at(-1), `signal ${i}`).toBe(`echo-test-${i}`);
    }
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
