// A clock tests can move forward, so lifetimes are checked without sleeping.
import type { Clock } from '../../src/kernel/clock.js';

export class TestClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
  /**
   * Moves to the start of the next fixed rate-limit window (throttle/throttle.ts counts per window), so the
   * calls of a test that spends a budget all fall in one window however close to its end the test began.
   */
  startRateWindow(windowSeconds = 60): void {
    const windowMs = windowSeconds * 1000;
    this.offset += windowMs - (this.now() % windowMs);
  }
}
