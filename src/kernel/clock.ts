// A clock the cores receive instead of calling Date.now(), so lifetimes are testable without sleeping.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Whole seconds since the epoch, as JWT and RFC 7662 use. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
