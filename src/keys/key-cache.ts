// Keeps each site's signing key and JWKS in memory for a few seconds, for a bounded number of sites. Importing a key is crypto work
// that need not happen per request; a rotation made by another process is picked up within the TTL,
// which is safe because the previous active key stays published after it retires.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';
import { type ActiveSigningKey, activeSigningKey, type PublicJwk, publishedKeys } from './signing-keys.js';
import { setBounded } from '../kernel/bounded-map.js';

const TTL_MS = 10_000;
/** Sites whose keys are kept; with 10,000 sites in a deployment only those in use stay (issue 12). */
export const KEY_SITES_KEPT = 5_000;

interface Entry<T> {
  value: Promise<T>;
  at: number;
}

export class KeyCache {
  private signing = new Map<string, Entry<ActiveSigningKey>>();
  private jwks = new Map<string, Entry<PublicJwk[]>>();

  constructor(
    private readonly db: Kysely<Database>,
    /** The keys that open stored signing keys (signingKeyDecryptionKeys). */
    private readonly masterKeys: readonly Buffer[],
    private readonly clock: Clock,
  ) {}

  signingKey(siteId: string): Promise<ActiveSigningKey> {
    return this.cached(this.signing, siteId, () => activeSigningKey(this.db, siteId, this.masterKeys));
  }

  published(siteId: string): Promise<PublicJwk[]> {
    return this.cached(this.jwks, siteId, () => publishedKeys(this.db, siteId, this.clock));
  }

  /** Forgets a site's keys (after a rotation in this process). */
  invalidate(siteId: string): void {
    this.signing.delete(siteId);
    this.jwks.delete(siteId);
  }

  private cached<T>(map: Map<string, Entry<T>>, siteId: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const hit = map.get(siteId);
    if (hit && now - hit.at < TTL_MS) return hit.value;
    const value = load();
    setBounded(map, siteId, { value, at: now }, KEY_SITES_KEPT);
    // A failed load is not kept: the next request tries again.
    value.catch(() => map.delete(siteId));
    return value;
  }
}
