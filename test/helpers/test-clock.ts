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
}
