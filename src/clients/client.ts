// The one Client type every OAuth endpoint sees, whatever its source (SPEC 5.2).
export type ClientAudience = 'member' | 'operator';
export type ClientSource = 'member-app' | 'vendor' | 'cimd';
export type TokenEndpointAuthMethod = 'none' | 'client_secret_post';

export interface Client {
  clientId: string;
  name: string;
  audience: ClientAudience;
  source: ClientSource;
  authMethod: TokenEndpointAuthMethod;
  /** SHA-256 hash of the secret for confidential clients. */
  secretHash: string | null;
  redirectUris: string[];
  /**
   * Scopes this client may ever hold. Member apps: what the operator granted. Vendors: the operator
   * catalogue (or the configured subset). CIMD: the read and identity scopes until reviewed.
   */
  allowedScopes: string[];
  /** For CIMD clients: the document's host, shown on the consent page. */
  documentHost: string | null;
}
