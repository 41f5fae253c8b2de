// Budgets and the one way to spend them. Every 429 the service sends comes from a RateLimitExceeded and
// carries the same headers: RateLimit-Limit/-Remaining/-Reset (draft-ietf-httpapi-ratelimit-headers,
// the form @fastify/rate-limit and most gateways send), RateLimit-Policy and Retry-After (RFC 9110 10.2.3).
import type { CounterStore } from './counter-store.js';

/** A budget and the key it is counted under. */
export type Charge = readonly [budget: Budget, key: string];

export interface Budget {
  /** Names the counter family; part of every key. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface Tally {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window ends, at least 1. */
  readonly resetSeconds: number;
  readonly policy: string;
}

export class RateLimitExceeded extends Error {
  override name = 'RateLimitExceeded';
  /** Read by the error handler like any Fastify error status. */
  readonly statusCode = 429;

  constructor(
    readonly budget: Budget,
    readonly tally: Tally,
  ) {
    super(`rate limit ${budget.name} exceeded`);
  }
}

export function rateLimitHeaders(tally: Tally): Record<string, string> {
  return {
    'ratelimit-limit': String(tally.limit),
    'ratelimit-remaining': String(tally.remaining),
    'ratelimit-reset': String(tally.resetSeconds),
    'ratelimit-policy': tally.policy,
  };
}

export class Throttle {
  constructor(
    private readonly store: CounterStore,
    private readonly now: () => number = Date.now,
    /** Told the budget's name at every refusal (the metrics count them). */
    private readonly onLimited: (budget: string) => void = () => {},
  ) {}

  private window(budget: Budget, key: string): { counter: string; ttlMs: number; resetSeconds: number } {
    const windowMs = budget.windowSeconds * 1000;
    const now = this.now();
    const index = Math.floor(now / windowMs);
    const ttlMs = (index + 1) * windowMs - now;
    return { counter: `${budget.name}:${key}:${index}`, ttlMs, resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
  }

  private tally(budget: Budget, count: number, resetSeconds: number): Tally {
    return {
      limit: budget.limit,
      remaining: Math.max(0, budget.limit - count),
      resetSeconds,
      policy: `${budget.limit};w=${budget.windowSeconds}`,
    };
  }

  private exceeded(budget: Budget, tally: Tally): RateLimitExceeded {
    this.onLimited(budget.name);
    return new RateLimitExceeded(budget, tally);
  }

  /** Spends one unit; throws RateLimitExceeded when the budget was already used up. */
  take(budget: Budget, key: string): Promise<Tally> {
    return this.spendUnless([], budget, key, true);
  }

  /** Spends one unit and never throws: records a failure whose own answer is already decided. */
  async record(budget: Budget, key: string): Promise<void> {
    await this.spendUnless([], budget, key, false);
  }

  /**
   * Throws RateLimitExceeded for the first of these budgets that is used up, without spending any; the
   * counters are read together (one round trip to Redis).
   */
  async check(...budgets: readonly Charge[]): Promise<void> {
    const windows = budgets.map(([budget, key]) => this.window(budget, key));
    const counts = await this.store.read(windows.map((w) => w.counter));
    budgets.forEach(([budget], i) => {
      const count = counts[i] ?? 0;
      if (count >= budget.limit) throw this.exceeded(budget, this.tally(budget, count, windows[i]?.resetSeconds ?? 1));
    });
  }

  /**
   * `take`, unless one of `guards` is used up: then RateLimitExceeded for the first such guard, and nothing
   * is spent. The check and the spending are one step (one round trip to Redis).
   */
  async takeUnless(guards: readonly Charge[], budget: Budget, key: string): Promise<Tally> {
    return this.spendUnless(guards, budget, key, true);
  }

  /** `record`, unless one of `guards` is used up: then RateLimitExceeded for the first such guard. */
  async recordUnless(guards: readonly Charge[], budget: Budget, key: string): Promise<void> {
    await this.spendUnless(guards, budget, key, false);
  }

  private async spendUnless(guards: readonly Charge[], budget: Budget, key: string, limited: boolean): Promise<Tally> {
    const guarded = guards.map(([guard, guardKey]) => ({ guard, window: this.window(guard, guardKey) }));
    const w = this.window(budget, key);
    const outcome = await this.store.addUnless(
      guarded.map(({ guard, window }) => ({ key: window.counter, limit: guard.limit })),
      w.counter,
      1,
      w.ttlMs,
    );
    const stopping = guarded[outcome.stoppedBy];
    if (stopping) throw this.exceeded(stopping.guard, this.tally(stopping.guard, outcome.count, stopping.window.resetSeconds));
    const tally = this.tally(budget, outcome.count, w.resetSeconds);
    if (limited && outcome.count > budget.limit) throw this.exceeded(budget, tally);
    return tally;
  }
}
