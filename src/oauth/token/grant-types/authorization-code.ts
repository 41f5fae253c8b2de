// RFC 6749 4.1.3 with RFC 7636 4.6 (PKCE) and RFC 8707 (resource): exchange a code once.
// A second use of a code is treated as theft: what the first exchange issued is revoked (4.1.2).
import { recordAudit } from '../../../audit/audit-log.js';
import { constantTimeEqual, hashToken, s256 } from '../../../kernel/hashing.js';
import { OAuthError } from '../../errors.js';
import { multiple, required } from '../../parameters.js';
import { checkResource } from '../../resource.js';
import { signIdToken } from '../../tokens/id-token.js';
import { identityClaims } from '../../tokens/identity-claims.js';
import { endGrant } from '../../tokens/token-revocation.js';
import { createGrant, mintTokenPair, writeTokenPair } from '../../tokens/tokens.repository.js';
import type { GrantType, TokenContext } from '../token-context.js';
import { tokenResponse } from '../token-response.js';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A second use of a code: deny it and revoke what the first exchange issued (RFC 6749 4.1.2, 10.5). */
async function codeReused(ctx: TokenContext, siteId: string, codeHash: string, personId: string, clientId: string): Promise<never> {
  // Read again: when two exchanges race, the winner has committed its grant by the time the loser gets here.
  const row = await ctx.db.selectFrom('authorization_codes').select('grant_id').where('code_hash', '=', codeHash).executeTakeFirst();
  if (row?.grant_id) await endGrant(ctx, siteId, row.grant_id);
  await recordAudit(ctx.db, { siteId, kind: 'code.replay_detected', personId, clientId }, ctx.clock);
  throw new OAuthError('invalid_grant', 'the authorization code was already used; the tokens issued for it are revoked');
}

export const authorizationCodeGrant: GrantType = {
  grantType: 'authorization_code',
  async handle(ctx, { site, client, params }) {
    const code = required(params, 'code');
    const redirectUri = required(params, 'redirect_uri');
    const verifier = required(params, 'code_verifier');
    if (!VERIFIER.test(verifier))
      throw new OAuthError('invalid_request', 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~] (RFC 7636 4.1)');

    const codeHash = hashToken(code);
    const row = await ctx.db
      .selectFrom('authorization_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .where('site_id', '=', site.id)
      .executeTakeFirst();
    const now = ctx.clock.now();
    if (!row || row.client_id !== client.clientId)
      throw new OAuthError('invalid_grant', 'the authorization code is invalid or was issued to another client');
    if (row.consumed_at !== null) return codeReused(ctx, site.id, codeHash, row.person_id, client.clientId);
    if (row.expires_at <= now) throw new OAuthError('invalid_grant', 'the authorization code expired');
    if (row.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    if (!constantTimeEqual(s256(verifier), row.code_challenge))
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    const resource = checkResource(multiple(params, 'resource'), site.origin);
    if (resource !== row.resource)
      throw new OAuthError('invalid_target', `resource must repeat the authorization request's value ${row.resource}`);
    // A role may be taken away between consent and exchange.
    const refusal = await ctx.standing.refusal(site, client.clientId, row.person_id);
    if (refusal !== null) throw new OAuthError('invalid_grant', refusal);

    const scopes = row.scope.split(' ');
    const values = mintTokenPair();
    const pair = await ctx.db.transaction().execute(async (trx) => {
      // Single use, enforced by the row itself: of two concurrent exchanges only one consumes the code.
      const consumed = await trx
        .updateTable('authorization_codes')
        .set({ consumed_at: now })
        .where('code_hash', '=', codeHash)
        .where('consumed_at', 'is', null)
        .executeTakeFirst();
      if (Number(consumed.numUpdatedRows) !== 1) return null;
      const grantId = await createGrant(
        trx,
        { siteId: site.id, clientId: client.clientId, personId: row.person_id, scope: row.scope, resource },
        ctx.clock,
      );
      await trx.updateTable('authorization_codes').set({ grant_id: grantId }).where('code_hash', '=', codeHash).execute();
      const issued = await writeTokenPair(
        trx,
        {
          siteId: site.id,
          clientId: client.clientId,
          personId: row.person_id,
          scope: row.scope,
          accessScope: row.scope,
          resource,
          grantId,
          accessLifetimeSeconds: ctx.lifetimes.access_token,
          refreshLifetimeSeconds: ctx.lifetimes.refresh_token,
        },
        values,
        ctx.clock,
      );
      await recordAudit(
        trx,
        {
          siteId: site.id,
          kind: 'token.issued',
          personId: row.person_id,
          clientId: client.clientId,
          detail: { grant: 'authorization_code', scope: row.scope },
        },
        ctx.clock,
      );
      return issued;
    });
    // Lost a race with another exchange of this code: that is a second use as well.
    if (!pair) return codeReused(ctx, site.id, codeHash, row.person_id, client.clientId);
    // Committed: the client's first refresh can start from this row instead of reading it back.
    ctx.freshRefreshTokens.remember(pair.refreshRow);

    let idToken: string | undefined;
    if (scopes.includes('openid')) {
      const claims = await identityClaims(ctx.people, site, row.person_id, scopes);
      if (!claims) throw new OAuthError('invalid_grant', 'the person no longer exists');
      idToken = await signIdToken(
        ctx.keys,
        { site, clientId: client.clientId, claims, nonce: row.nonce, authTimeMs: row.auth_time, lifetimeSeconds: ctx.lifetimes.id_token },
        ctx.clock,
      );
    }
    return tokenResponse(pair, ctx.lifetimes.access_token, row.scope, idToken);
  },
};
