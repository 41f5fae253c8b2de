// Readiness (issue 8, "Operations"): whether this node can serve, for a load balancer to decide. It asks
// each dependency one trivial question with a short deadline, so a probe never hangs on a store that does.
import { type Kysely, sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../storage/schema.js';

/** How long a dependency may take to answer a readiness probe. */
export const READINESS_TIMEOUT_MS = 1000;

export type PartState = 'ok' | 'failed';

export interface Readiness {
  ready: boolean;
  database: PartState;
  /** Present when Redis is configured. */
  redis?: PartState;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('readiness timeout')), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function probe(question: () => Promise<unknown>): Promise<PartState> {
  try {
    await within(question(), READINESS_TIMEOUT_MS);
    return 'ok';
  } catch {
    return 'failed';
  }
}

export async function checkReadiness(db: Kysely<Database>, redis: Redis | null): Promise<Readiness> {
  const [database, cache] = await Promise.all([
    probe(() => sql`select 1`.execute(db)),
    redis ? probe(() => redis.ping()) : Promise.resolve(undefined),
  ]);
  return { ready: database === 'ok' && cache !== 'failed', database, ...(cache ? { redis: cache } : {}) };
}
