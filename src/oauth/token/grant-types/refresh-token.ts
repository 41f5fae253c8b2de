// RFC 6749 6 with rotation (RFC 9700 4.14.2). Every use rotates the token by an atomic compare-and-swap
// committed together with the new tokens, so two concurrent refreshes can never both rotate one token.
// Clients race (INTEROP "Refresh tokens"): the loser of a race, or a client that retries within the
// grace window, gets the winner's answer again instead of a logout. The new tokens are computed from the
// old token under a key of the server's secret (token-format.ts's successorTokens), so that answer is
// computed again, by its holder's presenting the old token, and only for the window; nothing of it is
// stored. Reuse after the window is treated as theft and ends the whole grant.
import { auditStatement, recordAudit } from '../../../audit/audit-log.js';
import { splitSpaceList } from '../../../kernel/result.js';
import { deriveKey, deriveTokenKey, unsealWithAny } from '../../../kernel/sealing.js';
import type { RefreshTokensTable } from '../../../storage/schema.js';
import { OAuthError } from '../../errors.js';
import { multiple, required, single } from '../../parameters.js';
import { checkResource } from '../../resource.js';
import { LOST_STANDING } from '../../standing.js';
import { tokenKey } from '../../tokens/token-format.js';
import { endGrant } from '../../tokens/token-revocation.js';
import {
  findAccessTokenByHash,
  findRefreshTokenByHash,
  grantStateStatement,
  issuedRefreshRow,
  rotationStatement,
  successorPair,
  tokenPairStatements,
} from '../../tokens/tokens.repository.js';
import type { GrantType, TokenContext, TokenResponse } from '../token-context.js';
import { tokenResponse } from '../token-response.js';

const REPLAY = 'refresh-replay';

/**
 * An answer sealed into the used token's row by a release before successors were computed: a retry within
 * its window across the upgrade still gets it. Such answers were sealed under a key of the token (deriveTokenKey's,
 * or deriveKey's before that); none is written now.
 */
function openSealedReplay(row: RefreshTokensTable, sealed: string, refreshToken: string): TokenResponse | undefined {
  const keys = [deriveTokenKey(refreshToken, REPLAY), deriveKey(refreshToken, REPLAY)];
  const opened = unsealWithAny(keys, sealed, row.token_hash);
  if (opened === undefined) return undefined;
  try {
    return JSON.parse(opened) as TokenResponse;
  } catch {
    return undefined;
  }
}

/**
 * The answer of the rotation that used `row`, again, while its window lasts: the successors computed from the
 * presented token, under the current secret's key or the previous one's (the rotation may predate a change of
 * secret). They are the answer only if that rotation wrote them: the new access token's row, in the same grant,
 * minted at the rotation; it also holds the scope and lifetime that rotation gave.
 */
async function replayAnswer(
  ctx: TokenContext,
  row: RefreshTokensTable,
  refreshToken: string,
  now: number,
): Promise<TokenResponse | undefined> {
  if (row.rotated_at === null || row.replay_until === null || row.replay_until <= now) return undefined;
  if (row.replay_sealed !== null) return openSealedReplay(row, row.replay_sealed, refreshToken);
  for (const key of ctx.successorKeys) {
    const pair = successorPair(key, refreshToken, row.rotated_at);
    const access = await findAccessTokenByHash(ctx.db, pair.accessHash);
    if (access && access.grant_id === row.grant_id && access.created_at === row.rotated_at) {
      const lifetimeSeconds = Math.round((access.expires_at - access.created_at) / 1000);
      const issued = { accessToken: pair.accessToken, refreshToken: pair.refreshToken, accessExpiresAt: access.expires_at };
      return tokenResponse(issued, lifetimeSeconds, access.scope);
    }
  }
  return undefined;
}

async function reuseDetected(ctx: TokenContext, row: RefreshTokensTable): Promise<never> {
  await endGrant(ctx, row.site_id, row.grant_id);
  ctx.observer.refreshReuseDetected();
  await recordAudit(
    ctx.db,
    { siteId: row.site_id, kind: 'refresh.reuse_detected', personId: row.person_id, clientId: row.client_id },
    ctx.clock,
  );
  throw new OAuthError('invalid_grant', 'the refresh token was already used; the grant is revoked and the person must authorize again');
}

export const refreshTokenGrant: GrantType = {
  grantType: 'refresh_token',
  async handle(ctx, { site, client, params }) {
    const refreshToken = required(params, 'refresh_token');
    const resources = multiple(params, 'resource');
    if (resources.length > 0) checkResource(resources, site.origin);
    const tokenHash = tokenKey(refreshToken);
    // The row this process wrote when it issued the token, or the store's; a stale one loses the swap below.
    const row = ctx.freshRefreshTokens.take(site.id, tokenHash) ?? (await findRefreshTokenByHash(ctx.db, site.id, tokenHash));
    const now = ctx.clock.now();
    if (!row || row.client_id !== client.clientId)
      throw new OAuthError('invalid_grant', 'the refresh token is invalid or was issued to another client');
    if (row.revoked_at !== null) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
    if (row.rotated_at !== null) return (await replayAnswer(ctx, row, refreshToken, now)) ?? reuseDetected(ctx, row);
    if (row.expires_at <= now) throw new OAuthError('invalid_grant', 'the refresh token expired');

    const granted = row.scope.split(' ');
    const requestedScope = single(params, 'scope');
    const accessScopes = requestedScope === undefined ? granted : splitSpaceList(requestedScope);
    const widened = accessScopes.filter((s) => !granted.includes(s));
    if (widened.length > 0)
      throw new OAuthError('invalid_scope', `scope may only narrow the original grant; not granted: ${widened.join(' ')}`);
    if (accessScopes.length === 0) throw new OAuthError('invalid_scope', 'scope must not be empty');
    // The person must still be allowed to hold this authorization at this site.
    // A lost role ends the family; a beta turned off only pauses it (nothing is deleted, issue 11).
    const refusal = await ctx.standing.refusal(site, client.clientId, row.person_id);
    if (refusal !== null) {
      if (refusal === LOST_STANDING) await endGrant(ctx, site.id, row.grant_id);
      throw new OAuthError('invalid_grant', refusal);
    }
    const accessScope = granted.filter((s) => accessScopes.includes(s)).join(' ');

    const values = successorPair(ctx.successorKeys[0], refreshToken, now);
    const response = tokenResponse(
      { accessToken: values.accessToken, refreshToken: values.refreshToken, accessExpiresAt: now + ctx.lifetimes.access_token * 1000 },
      ctx.lifetimes.access_token,
      accessScope,
    );
    const grace = ctx.lifetimes.refresh_grace;
    const replayUntil = grace > 0 ? now + grace * 1000 : null;
    const issue = {
      siteId: site.id,
      clientId: client.clientId,
      personId: row.person_id,
      scope: row.scope,
      accessScope,
      resource: row.resource,
      grantId: row.grant_id,
      accessLifetimeSeconds: ctx.lifetimes.access_token,
      refreshLifetimeSeconds: ctx.lifetimes.refresh_token,
    };
    const audit = {
      siteId: site.id,
      kind: 'token.refreshed' as const,
      personId: row.person_id,
      clientId: client.clientId,
      detail: { scope: accessScope },
    };
    // The compare-and-swap, the grant check and the new pair as one unit, committed together with the
    // rotations beside it on SQLite (storage/group-commit.ts) and answered only after that commit; on
    // PostgreSQL the same unit is one statement, shared with the rotations beside it (tokens/postgres-rotations.ts).
    const won = !ctx.postgresRotations
      ? await ctx.rotations.run(function* (db) {
          if ((yield rotationStatement(db, row.token_hash, now, replayUntil)).changes !== 1) return false;
          const grant = (yield grantStateStatement(db, row.grant_id)).rows[0] as { revoked_at: number | null } | undefined;
          // Thrown, not returned: the unit's own compare-and-swap is undone with it.
          if (!grant || grant.revoked_at !== null) throw new OAuthError('invalid_grant', 'the grant was revoked');
          for (const statement of tokenPairStatements(db, issue, values, now)) yield statement;
          yield auditStatement(db, audit, now);
          return true;
        })
      : await ctx.postgresRotations
          .rotate({ input: issue, values, used: { tokenHash: row.token_hash, now, replayUntil }, audit })
          .then((outcome) => {
            if (outcome === 'grant_revoked') throw new OAuthError('invalid_grant', 'the grant was revoked');
            return outcome === 'rotated';
          });
    if (won) {
      ctx.freshRefreshTokens.remember(issuedRefreshRow(issue, values, now));
      return response;
    }

    // Lost the race: the winner has committed by now; answer as a retry within the window would.
    const after = await findRefreshTokenByHash(ctx.db, site.id, tokenHash);
    if (after && after.revoked_at === null) {
      const replay = await replayAnswer(ctx, after, refreshToken, ctx.clock.now());
      if (replay) return replay;
      return reuseDetected(ctx, after);
    }
    throw new OAuthError('invalid_grant', 'the refresh token was revoked');
  },
};
