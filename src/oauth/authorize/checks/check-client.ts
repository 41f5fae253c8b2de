// RFC 6749 4.1.2.1: an unknown client must not be redirected to; the person sees a page instead.
import { CimdError } from '../../../clients/cimd/types.js';
import { type Client, ClientRefusedError } from '../../../clients/client.js';
import type { ClientResolver } from '../../../clients/resolve-client.js';
import type { Site } from '../../../sites/site.js';
import { AuthorizationPageError, OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export async function checkClient(
  params: RawParams,
  site: Site,
  clients: ClientResolver,
  onCimdRefused: (clientId: string, error: CimdError) => Promise<void>,
): Promise<Client> {
  let clientId: string | undefined;
  try {
    clientId = single(params, 'client_id');
  } catch (err) {
    if (err instanceof OAuthError) throw new AuthorizationPageError('invalid_request', err.description);
    throw err;
  }
  if (!clientId) throw new AuthorizationPageError('invalid_request', 'client_id is required');
  try {
    const client = await clients.resolve(site, clientId);
    if (!client)
      throw new AuthorizationPageError('invalid_client', `no application with client_id "${clientId}" is registered at ${site.name}`);
    return client;
  } catch (err) {
    if (err instanceof CimdError) {
      await onCimdRefused(clientId, err);
      throw new AuthorizationPageError('invalid_client', err.message);
    }
    if (err instanceof ClientRefusedError) throw new AuthorizationPageError('invalid_client', err.message);
    throw err;
  }
}
