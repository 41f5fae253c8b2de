// OIDC Core 3.1.2.1: id_token_hint, an ID token this site issued to this client earlier, naming the person
// the client expects. Its signature must verify against this site's published keys; an expired one is
// fine (the spec allows it), one from another issuer, for another client or forged is invalid_request.
import { compactVerify, createLocalJWKSet } from 'jose';
import type { Client } from '../../../clients/client.js';
import type { KeyCache } from '../../../keys/key-cache.js';
import type { Site } from '../../../sites/site.js';
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

const NOT_OURS = 'id_token_hint is not an ID token this site issued to this client';

/** The `sub` the hint names, or null without a hint. */
export async function checkIdTokenHint(params: RawParams, site: Site, client: Client, keys: KeyCache): Promise<string | null> {
  const hint = single(params, 'id_token_hint');
  if (hint === undefined) return null;
  let payload: Record<string, unknown>;
  try {
    const jwks = createLocalJWKSet({ keys: await keys.published(site.id) });
    const verified = await compactVerify(hint, jwks, { algorithms: ['ES256'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw new OAuthError('invalid_request', NOT_OURS);
  }
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.iss !== site.origin || !audience.includes(client.clientId) || typeof payload.sub !== 'string') {
    throw new OAuthError('invalid_request', NOT_OURS);
  }
  return payload.sub;
}
