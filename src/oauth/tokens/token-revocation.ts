// Ending grants and tokens: the database change, then the signal that evicts every process's cached
// copy (storage/revocation-signals.ts). Every revocation goes through here so none can skip the signal.
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { RevocationSignals } from '../../storage/revocation-signals.js';
import type { Database } from '../../storage/schema.js';
import { revokeAccessToken, revokeGrant } from './tokens.repository.js';

export interface RevocationContext {
  db: Kysely<Database>;
  clock: Clock;
  signals: RevocationSignals;
}

/** Ends a grant and every token under it. Consent and the person's session are untouched. */
export async function endGrant(ctx: RevocationContext, siteId: string, grantId: string): Promise<void> {
  await revokeGrant(ctx.db, siteId, grantId, ctx.clock);
  await ctx.signals.publish({ kind: 'grant', grantId });
}

export async function endAccessToken(ctx: RevocationContext, siteId: string, tokenHash: string): Promise<void> {
  await revokeAccessToken(ctx.db, siteId, tokenHash, ctx.clock);
  await ctx.signals.publish({ kind: 'access_token', tokenHash });
}
