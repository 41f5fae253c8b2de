// A per-process cache of access-token rows by hash, the bearer check's hot path. It never outlives a
// revocation: revocation signals evict entries by grant or token at once, a flush empties it, and it is
// bypassed entirely whenever the signals are not reliable (storage/revocation-signals.ts). Expiry is
// still checked against the row on every request; the TTL only bounds memory and any missed signal.
import { CacheStats } from '../../observability/cache-stats.js';
import type { Clock } from '../../kernel/clock.js';
import type { RevocationSignals } from '../../storage/revocation-signals.js';
import type { AccessTokensTable } from '../../storage/schema.js';

const TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;
/** How long a revocation is remembered, to refuse a stale row that a concurrent lookup read before it. */
const REMEMBER_REVOKED_MS = 120_000;

interface Entry {
  row: AccessTokensTable;
  until: number;
}

export class AccessTokenCache {
  readonly stats = new CacheStats();
  private readonly entries = new Map<string, Entry>();
  private readonly byGrant = new Map<string, Set<string>>();
  private readonly revoked = new Map<string, number>();

  constructor(
    private readonly signals: RevocationSignals,
    private readonly clock: Clock,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    signals.subscribe((signal) => {
      if (signal.kind === 'flush') return this.clear();
      if (signal.kind !== 'grant' && signal.kind !== 'access_token') return;
      const key = signal.kind === 'grant' ? `g:${signal.grantId}` : `t:${signal.tokenHash}`;
      const now = this.clock.now();
      if (this.revoked.size >= this.maxEntries) for (const [k, until] of this.revoked) if (until <= now) this.revoked.delete(k);
      this.revoked.set(key, now + REMEMBER_REVOKED_MS);
      if (signal.kind === 'grant') {
        for (const hash of this.byGrant.get(signal.grantId) ?? []) this.entries.delete(hash);
        this.byGrant.delete(signal.grantId);
      } else {
        this.evict(signal.tokenHash);
      }
    });
  }

  /** The row from the cache when it may be trusted, else from `load` (and kept when live). */
  lookup(
    tokenHash: string,
    load: (tokenHash: string) => Promise<AccessTokensTable | undefined>,
  ): AccessTokensTable | Promise<AccessTokensTable | undefined> {
    // A hit is answered at once, not through a promise: this is every protected request's first step.
    const cached = this.get(tokenHash);
    if (cached) return cached;
    return load(tokenHash).then((row) => {
      if (row) this.set(tokenHash, row);
      return row;
    });
  }

  get(tokenHash: string): AccessTokensTable | undefined {
    const row = this.trusted(tokenHash);
    this.stats.count(row !== undefined);
    return row;
  }

  private trusted(tokenHash: string): AccessTokensTable | undefined {
    if (!this.signals.reliable()) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until <= this.clock.now()) {
      this.evict(tokenHash);
      return undefined;
    }
    return entry.row;
  }

  /** Keeps a live row; revoked ones, and rows of anything revoked moments ago, are not kept. */
  set(tokenHash: string, row: AccessTokensTable): void {
    if (row.revoked_at !== null || !this.signals.reliable()) return;
    const now = this.clock.now();
    if (this.recentlyRevoked(`g:${row.grant_id}`, now) || this.recentlyRevoked(`t:${tokenHash}`, now)) return;
    // Full: forget the row kept longest (Map order is insertion order), not every row, which would turn every
    // bearer check into a database read at once whenever more tokens are in use within one TTL than the bound.
    if (this.entries.size >= this.maxEntries && !this.entries.has(tokenHash)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.evict(oldest.value);
    }
    this.entries.set(tokenHash, { row, until: Math.min(now + TTL_MS, row.expires_at) });
    let hashes = this.byGrant.get(row.grant_id);
    if (!hashes) {
      hashes = new Set();
      this.byGrant.set(row.grant_id, hashes);
    }
    hashes.add(tokenHash);
  }

  private recentlyRevoked(key: string, now: number): boolean {
    const until = this.revoked.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.revoked.delete(key);
    return false;
  }

  private evict(tokenHash: string): void {
    const entry = this.entries.get(tokenHash);
    if (!entry) return;
    this.entries.delete(tokenHash);
    const hashes = this.byGrant.get(entry.row.grant_id);
    hashes?.delete(tokenHash);
    if (hashes?.size === 0) this.byGrant.delete(entry.row.grant_id);
  }

  private clear(): void {
    this.entries.clear();
    this.byGrant.clear();
  }
}
