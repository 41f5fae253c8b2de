// Hit and miss counts of an in-process cache, read by the metrics at scrape time (plain numbers, so the
// hot path pays an increment and nothing more).
export class CacheStats {
  hits = 0;
  misses = 0;

  count(hit: boolean): void {
    if (hit) this.hits++;
    else this.misses++;
  }
}
