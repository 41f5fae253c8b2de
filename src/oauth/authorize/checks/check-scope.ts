// SPEC 5.2, 5.5: the requested scopes must fit the client's audience and allowance.
import type { Client } from '../../../clients/client.js';
import { splitSpaceList } from '../../../kernel/result.js';
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';
import { checkRequestedScopes } from '../../scopes.js';

export function checkScope(params: RawParams, client: Client): string[] {
  const verdict = checkRequestedScopes(client, splitSpaceList(single(params, 'scope')));
  if (!verdict.ok) throw new OAuthError('invalid_scope', verdict.description);
  return verdict.scopes;
}
