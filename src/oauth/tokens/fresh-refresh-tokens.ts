// The rows of refresh tokens this process has just issued, kept until their first use: a client refreshes
// with the token its last refresh gave it, so the refresh grant can start from the row it wrote instead of
// reading it back (on PostgreSQL one of its two statements). Only the immutable columns are trusted:
// whether the token is still unrotated and unrevoked, and its grant live, is decided by the rotation's
// compare-and-swap in the store, which refuses a stale row; a refused swap reads the row from the store
// (grant-types/refresh-token.ts). Another node, or this one after a restart, simply reads the store.
import type { RefreshTokensTable } from '../../storage/schema.js';
import { setBounded } from '../../kernel/bounded-map.js';

/** Rows kept; past it the oldest go first (a client that never refreshes leaves its row to age out). */
export const FRESH_REFRESH_TOKENS_MAX = 50_000;

export class FreshRefreshTokens {
  private readonly rows = new Map<string, RefreshTokensTable>();

  constructor(private readonly max = FRESH_REFRESH_TOKENS_MAX) {}

  /** Keeps the row of a token whose issuance has committed. */
  remember(row: RefreshTokensTable): void {
    setBounded(this.rows, row.token_hash, row, this.max);
  }

  /** The row of this site's token, once: a second use of the same token reads the store. */
  take(siteId: string, tokenHash: string): RefreshTokensTable | undefined {
    const row = this.rows.get(tokenHash);
    if (row === undefined) return undefined;
    this.rows.delete(tokenHash);
    return row.site_id === siteId ? row : undefined;
  }

  get size(): number {
    return this.rows.size;
  }
}
