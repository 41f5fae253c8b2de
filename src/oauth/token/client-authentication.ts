// Client authentication at the token, revocation and introspection endpoints (RFC 6749 2.3, 3.2.1;
// SPEC 5.1): public clients use `none`; confidential ones `client_secret_basic` (RFC 6749 2.3.1, what most
// libraries send by default) or `client_secret_post`. One method per request (2.3). The secret is compared
// as a hash, in constant time.
import { CimdError } from '../../clients/cimd/types.js';
import { type Client, ClientRefusedError } from '../../clients/client.js';
import type { ClientResolver } from '../../clients/resolve-client.js';
import { constantTimeEqual, hashToken } from '../../kernel/hashing.js';
import type { Site } from '../../sites/site.js';
import { OAuthError } from '../errors.js';
import { type RawParams, single } from '../parameters.js';
import type { TokenContext } from './token-context.js';

/** RFC 6749 5.2: a failed Basic authentication answers 401 with a challenge of the scheme the client used. */
function basicFailure(site: Site, description: string): OAuthError {
  return new OAuthError('invalid_client', description, 401, `Basic realm="${site.origin}", charset="UTF-8"`);
}

/** RFC 6749 2.3.1 / Appendix B: id and secret are each form-urlencoded before Base64. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

export interface BasicCredentials {
  clientId: string;
  secret: string;
}

/** Reads `Authorization: Basic`; undefined when the header is another scheme or absent; throws when malformed. */
export function parseBasicCredentials(site: Site, header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!match) {
    if (/^basic(\s|$)/i.test(header)) throw basicFailure(site, 'the Basic credentials are malformed');
    return undefined;
  }
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const clientId = colon < 0 ? undefined : formDecode(decoded.slice(0, colon));
  const secret = colon < 0 ? undefined : formDecode(decoded.slice(colon + 1));
  if (!clientId || secret === undefined)
    throw basicFailure(site, 'the Basic credentials must be client_id:client_secret, each form-urlencoded');
  return { clientId, secret };
}

async function resolveClient(clients: ClientResolver, site: Site, clientId: string): Promise<Client | undefined> {
  try {
    return await clients.resolve(site, clientId);
  } catch (err) {
    if (err instanceof CimdError || err instanceof ClientRefusedError) throw new OAuthError('invalid_client', err.message);
    throw err;
  }
}

/** `basic` is the request's `Authorization: Basic` credentials, parsed once by the caller (parseBasicCredentials). */
async function authenticateClient(
  clients: ClientResolver,
  site: Site,
  params: RawParams,
  basic: BasicCredentials | undefined,
): Promise<Client> {
  const bodyClientId = single(params, 'client_id');
  const bodySecret = single(params, 'client_secret');
  if (basic) {
    if (bodySecret !== undefined)
      throw new OAuthError('invalid_request', 'use one client authentication method: client_secret in the body or HTTP Basic, not both');
    if (bodyClientId !== undefined && bodyClientId !== basic.clientId)
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header');
    const client = await resolveClient(clients, site, basic.clientId);
    if (!client) throw basicFailure(site, `unknown client_id at ${site.origin}`);
    if (client.authMethod === 'none') throw basicFailure(site, 'this client is public (token_endpoint_auth_method none) and has no secret');
    if (!client.secretHash || !constantTimeEqual(hashToken(basic.secret), client.secretHash)) {
      throw basicFailure(site, 'client authentication failed');
    }
    return client;
  }

  if (!bodyClientId) throw new OAuthError('invalid_client', 'client_id is required');
  const client = await resolveClient(clients, site, bodyClientId);
  if (!client) throw new OAuthError('invalid_client', `unknown client_id at ${site.origin}`);
  if (client.authMethod === 'none') {
    if (bodySecret !== undefined)
      throw new OAuthError('invalid_client', 'this client is public (token_endpoint_auth_method none) and must not send client_secret');
    return client;
  }
  if (bodySecret === undefined)
    throw new OAuthError(
      'invalid_client',
      'this client is confidential: authenticate with HTTP Basic (client_secret_basic) or client_secret in the body (client_secret_post)',
    );
  if (!client.secretHash || !constantTimeEqual(hashToken(bodySecret), client.secretHash)) {
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  return client;
}

/** Who is calling a back-channel endpoint; `client` is set once authenticated. */
export interface Caller {
  readonly authorization: string | undefined;
  readonly address: string;
  client?: Client;
}

/** Authenticates the caller and spends its rate budget: the one entry of the three back-channel endpoints. */
export async function authenticateCaller(
  ctx: Pick<TokenContext, 'clients' | 'limits'>,
  site: Site,
  params: RawParams,
  caller: Caller,
): Promise<Client> {
  // An operator-audience id may be a Client ID Metadata Document that has to be fetched to resolve it: not
  // for an address that has used up its budgets (member apps are read from the store, and their address
  // is checked with the client's own budget below, in the same round trip).
  const basic = parseBasicCredentials(site, caller.authorization);
  const claimed = basic?.clientId ?? single(params, 'client_id');
  if (claimed !== undefined && ctx.clients.audienceOf(claimed) === 'operator') await ctx.limits.admitAddress(caller.address);
  const client = await authenticateClient(ctx.clients, site, params, basic);
  caller.client = client;
  await ctx.limits.admitClient(site, client, caller.address);
  return client;
}
