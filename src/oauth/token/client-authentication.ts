// Client authentication at the token, revocation and introspection endpoints (RFC 6749 2.3, 3.2.1;
// SPEC 5.1): public clients use `none`, confidential ones `client_secret_post`. The secret is compared
// as a hash, in constant time.
import { CimdError } from '../../clients/cimd/types.js';
import type { Client } from '../../clients/client.js';
import type { ClientResolver } from '../../clients/resolve-client.js';
import { constantTimeEqual, hashToken } from '../../kernel/hashing.js';
import type { Site } from '../../sites/site.js';
import { OAuthError } from '../errors.js';
import { type RawParams, single } from '../parameters.js';

export async function authenticateClient(
  clients: ClientResolver,
  site: Site,
  params: RawParams,
  authorizationHeader: string | undefined,
): Promise<Client> {
  if (authorizationHeader && /^basic /i.test(authorizationHeader)) {
    throw new OAuthError(
      'invalid_client',
      'client_secret_basic is not supported; send client_id and client_secret in the form body (client_secret_post)',
    );
  }
  const clientId = single(params, 'client_id');
  if (!clientId) throw new OAuthError('invalid_client', 'client_id is required');
  let client: Client | undefined;
  try {
    client = await clients.resolve(site, clientId);
  } catch (err) {
    if (err instanceof CimdError) throw new OAuthError('invalid_client', err.message);
    throw err;
  }
  if (!client) throw new OAuthError('invalid_client', `unknown client_id at ${site.origin}`);
  const secret = single(params, 'client_secret');
  if (client.authMethod === 'none') {
    if (secret !== undefined)
      throw new OAuthError('invalid_client', 'this client is public (token_endpoint_auth_method none) and must not send client_secret');
    return client;
  }
  if (secret === undefined)
    throw new OAuthError('invalid_client', 'client_secret is required for this confidential client (client_secret_post)');
  if (!client.secretHash || !constantTimeEqual(hashToken(secret), client.secretHash)) {
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  return client;
}
