// The one Client type every OAuth endpoint sees, whatever its source (SPEC 5.2).
/**
 * A client this site refuses for now (issue 11): a Client ID Metadata Document client an operator
 * blocked, or a member application while the site's "MCP connections" beta is off. The message is
 * safe to show to the person and the client.
 */
export class ClientRefusedError extends Error {
  override name = 'ClientRefusedError';
  constructor(
    readonly reason: 'blocked' | 'mcp_connections_off',
    message: string,
  ) {
    super(message);
  }
}

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
