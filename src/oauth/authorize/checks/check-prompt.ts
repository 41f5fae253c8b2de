// OIDC Core 3.1.2.1: prompt is none, or any of login and consent; `none` stands alone.
import { OAuthError } from '../../errors.js';
import { splitSpaceList } from '../../../kernel/result.js';
import { type RawParams, single } from '../../parameters.js';
import type { PromptValue } from '../authorization-request.js';

const SUPPORTED = new Set<string>(['none', 'login', 'consent']);

export function checkPrompt(params: RawParams): Set<PromptValue> {
  const values = splitSpaceList(single(params, 'prompt'));
  const unknown = values.filter((v) => !SUPPORTED.has(v));
  if (unknown.length > 0) throw new OAuthError('invalid_request', `unsupported prompt value: ${unknown.join(' ')}`);
  if (values.includes('none') && values.length > 1)
    throw new OAuthError('invalid_request', 'prompt=none must not be combined with other values');
  return new Set(values as PromptValue[]);
}
