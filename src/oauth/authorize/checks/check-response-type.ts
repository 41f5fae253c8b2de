// SPEC 4.2: only the authorization code flow (`response_type=code`).
import { OAuthError } from '../../errors.js';
import { type RawParams, single } from '../../parameters.js';

export function checkResponseType(params: RawParams): void {
  const responseType = single(params, 'response_type');
  if (responseType === undefined) throw new OAuthError('invalid_request', 'response_type is required');
  if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'only response_type=code is supported');
  const mode = single(params, 'response_mode');
  if (mode !== undefined && mode !== 'query') throw new OAuthError('invalid_request', 'only response_mode=query is supported');
}
