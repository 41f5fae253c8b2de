// A validated authorization request (SPEC 4.2): what the checks produce and the code is bound to.
import type { Client } from '../../clients/client.js';

export type PromptValue = 'none' | 'login' | 'consent';

export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  resource: string;
  codeChallenge: string;
  nonce: string | null;
  prompt: Set<PromptValue>;
  /** OIDC max_age in seconds, or null. */
  maxAge: number | null;
  /** OIDC login_hint: fills the sign-in form's e-mail field. */
  loginHint: string | null;
  /** The person an id_token_hint names, or null. */
  hintedSubject: string | null;
}
