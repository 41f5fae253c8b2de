// The ID token (SPEC 5.3, OIDC Core 2): ES256 with the site's active key and its kid, lifetime from
// config (10 minutes), `iss` = the site's origin, `aud` = the client_id, `iat`, `auth_time`, `nonce`.
import { SignJWT } from 'jose';
import { type Clock, epochSeconds } from '../../kernel/clock.js';
import type { KeyCache } from '../../keys/key-cache.js';
import { SIGNING_ALG } from '../../keys/signing-keys.js';
import type { Site } from '../../sites/site.js';
import type { IdentityClaims } from './identity-claims.js';

export interface IdTokenInput {
  site: Site;
  clientId: string;
  claims: IdentityClaims;
  nonce: string | null;
  authTimeMs: number;
  lifetimeSeconds: number;
}

export async function signIdToken(keys: KeyCache, input: IdTokenInput, clock: Clock): Promise<string> {
  const { kid, key } = await keys.signingKey(input.site.id);
  const iat = epochSeconds(clock);
  const payload: Record<string, unknown> = { ...input.claims, auth_time: Math.floor(input.authTimeMs / 1000) };
  if (input.nonce !== null) payload.nonce = input.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'JWT' })
    .setIssuer(input.site.origin)
    .setAudience(input.clientId)
    .setSubject(input.claims.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.lifetimeSeconds)
    .sign(key);
}
