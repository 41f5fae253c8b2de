// Revocation signals: how every serving process learns at once that a grant or token was revoked, so
// caches of token lookups never outlive a revocation (issue 2: "revocation effective immediately on
// every node"). A cache may be used only while `reliable()` holds:
// - SQLite (one serving process per file): signals are in-process, and SQLite's data_version tells
//   when another process (the CLI, say) committed, which flushes every cache.
// - PostgreSQL with REDIS_URL: signals travel over Redis pub/sub; while the subscription is not up,
//   caches are bypassed and flushed.
// - PostgreSQL without Redis: never reliable; every lookup reads the database.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Store } from './connect.js';
import { type RedisNames, redisNames } from './redis-names.js';

/**
 * `catalogue`: an operator changed something of a site's school (school/school-read-cache.ts). Nodes
 * ignore kinds they do not know (a node older than this kind reads it as the revocation of no token, just
 * as harmless), so a rolling upgrade may send new kinds.
 */
export type RevocationSignal =
  | { kind: 'grant'; grantId: string }
  | { kind: 'access_token'; tokenHash: string }
  | { kind: 'flush' }
  | { kind: 'catalogue'; siteId: string };

export interface RevocationSignals {
  /** True while every revocation anywhere in the deployment is sure to reach this process. */
  reliable(): boolean;
  /** Tells this process now and, where there are others, every other process. Call after the commit. */
  publish(signal: RevocationSignal): Promise<void>;
  subscribe(listener: (signal: RevocationSignal) => void): void;
  close(): Promise<void>;
}

/**
 * Longest a publisher waits for its own signal to come back through Redis. Redis answers PUBLISH before
 * it has necessarily written the message to every subscriber, so a node that answered its client at once
 * could be asked by that client at another node before the signal got there (seen: 1-3 ms on a busy box).
 * Redis writes a message to all its subscribers in one pass, this node's own subscriber among them; once
 * that copy is back, the others have been sent too.
 */
export const ECHO_WAIT_MS = 100;
/** How long a publish may wait for Redis to take it; the revoking request answers either way. */
const PUBLISH_TIMEOUT_MS = 1_000;
/** How long a node still knows its own signal once it stopped waiting: a late copy is then not told again. */
const ECHO_KNOWN_MS = 60_000;

/** A signal on the wire: the signal, and which publish it came from (so a node knows its own echo). */
type WireSignal = RevocationSignal & { from?: string };

function localBus() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(50);
  return {
    emit: (signal: RevocationSignal) => emitter.emit('signal', signal),
    subscribe: (listener: (signal: RevocationSignal) => void) => emitter.on('signal', listener),
  };
}

/**
 * Reading data_version takes a file lock (a system call); it is read at most this often, so another
 * process's write is noticed within a millisecond: the same order of delay as Redis between nodes.
 */
export const DATA_VERSION_INTERVAL_MS = 1;

function sqliteSignals(externalWriteVersion: () => number): RevocationSignals {
  const bus = localBus();
  let seen = externalWriteVersion();
  let checkedAt = performance.now();
  return {
    reliable() {
      const now = performance.now();
      if (now - checkedAt >= DATA_VERSION_INTERVAL_MS) {
        checkedAt = now;
        const version = externalWriteVersion();
        if (version !== seen) {
          seen = version;
          bus.emit({ kind: 'flush' });
        }
      }
      return true;
    },
    async publish(signal) {
      bus.emit(signal);
    },
    subscribe: bus.subscribe,
    close: async () => {},
  };
}

function redisSignals(redisUrl: string, channel: string): RevocationSignals {
  const bus = localBus();
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false } as const;
  // A command sent just as the link dies waits in ioredis for the next successful reconnect (its queue of
  // unanswered commands is kept to be sent again, and not failed): with Redis gone for good, a revocation
  // would wait with it. Its publish gives up after PUBLISH_TIMEOUT_MS instead, as the counters' commands do.
  const publisher = new Redis(redisUrl, { ...options, commandTimeout: PUBLISH_TIMEOUT_MS });
  // The subscription is made again on every 'ready' below, with its failure handled. ioredis's own
  // resubscription after a reconnect sends SUBSCRIBE with no rejection handler (ioredis 5.11 and 6.0;
  // redis/ioredis#2187): a link that drops again, or a node stopping, while it is pending made it an
  // unhandled rejection, which ends a Node process. So ioredis does not resubscribe by itself.
  const subscriber = new Redis(redisUrl, { ...options, enableOfflineQueue: true, autoResubscribe: false });
  let subscribed = false;
  /** Publishes of this node whose copy has not come back yet, by id: what to do when it does. */
  const echoes = new Map<string, { heard: () => void; forget: NodeJS.Timeout }>();
  const lost = () => {
    if (subscribed) bus.emit({ kind: 'flush' });
    subscribed = false;
  };
  // Errors are reported through `reliable()`; an unhandled 'error' event would end the process.
  publisher.on('error', () => {});
  subscriber.on('error', lost);
  subscriber.on('close', lost);
  subscriber.on('end', lost);
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(() => {
      // Anything published while we were not listening is unknown: start from an empty cache.
      bus.emit({ kind: 'flush' });
      subscribed = true;
    }, lost);
  });
  subscriber.on('message', (_channel: string, message: string) => {
    let wire: WireSignal;
    try {
      wire = JSON.parse(message) as WireSignal;
    } catch {
      bus.emit({ kind: 'flush' });
      return;
    }
    const echo = wire.from === undefined ? undefined : echoes.get(wire.from);
    if (echo) {
      // This node's own signal, already told here when it was published.
      echoes.delete(wire.from as string);
      clearTimeout(echo.forget);
      return echo.heard();
    }
    const { from: _from, ...signal } = wire;
    bus.emit(signal);
  });
  return {
    reliable: () => subscribed,
    async publish(signal) {
      bus.emit(signal);
      const from = randomUUID();
      // Only a subscribed node hears its echo; otherwise there is nothing to wait for.
      const waiting = subscribed;
      let wait: NodeJS.Timeout | undefined;
      const echoed = new Promise<void>((resolve) => {
        const forget = setTimeout(() => echoes.delete(from), ECHO_KNOWN_MS);
        forget.unref();
        echoes.set(from, { heard: resolve, forget });
        if (waiting) wait = setTimeout(resolve, ECHO_WAIT_MS);
      });
      try {
        await publisher.publish(channel, JSON.stringify({ ...signal, from } satisfies WireSignal));
        if (waiting) await echoed;
      } catch {
        // Other processes whose Redis link is down bypass their caches already; nothing else to do. Nothing
        // was sent, so no copy will come back.
        clearTimeout(echoes.get(from)?.forget);
        echoes.delete(from);
      } finally {
        clearTimeout(wait);
      }
    },
    subscribe: bus.subscribe,
    async close() {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

function noSignals(): RevocationSignals {
  const bus = localBus();
  return { reliable: () => false, publish: async (s) => void bus.emit(s), subscribe: bus.subscribe, close: async () => {} };
}

export function createRevocationSignals(store: Store, redisUrl: string | undefined, names: RedisNames = redisNames()): RevocationSignals {
  if (store.externalWriteVersion) return sqliteSignals(store.externalWriteVersion);
  if (redisUrl) return redisSignals(redisUrl, names.revocationChannel);
  return noSignals();
}

/**
 * For a process that writes but does not serve (the CLI): tells the serving processes to drop their
 * caches. Only PostgreSQL deployments with Redis need it; on SQLite, data_version already carries it.
 */
export async function announceChange(store: Store, redisUrl: string | undefined, names: RedisNames = redisNames()): Promise<void> {
  if (store.externalWriteVersion || !redisUrl) return;
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.publish(names.revocationChannel, JSON.stringify({ kind: 'flush' } satisfies RevocationSignal));
  } finally {
    client.disconnect();
  }
}
