// OIDC Core 6: request objects are not supported; say so rather than ignore them.
import { OAuthError } from '../../errors.js';
import type { RawParams } from '../../parameters.js';

export function checkNoRequestObject(params: RawParams): void {
  if (params.request !== undefined || params.request_uri !== undefined) {
    throw new OAuthError('invalid_request', 'request and request_uri are not supported; send the parameters in the query');
  }
}
