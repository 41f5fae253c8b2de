// Client ID Metadata Documents (IETF draft-ietf-oauth-client-id-metadata-document, SPEC 4.2).
/** What the resolver learned from a valid document; client resolution turns it into a Client. */
export interface CimdDocument {
  /** Equals the URL it was fetched from, exactly. */
  clientId: string;
  host: string;
  clientName: string | null;
  redirectUris: string[];
  /** `none` or another non-shared-secret method; a shared-secret method is refused. */
  tokenEndpointAuthMethod: string;
  /** The document's scope field, when present (space-delimited). */
  scope: string | null;
  /** Whether the host is in the platform's reviewed list (write scopes allowed). */
  reviewed: boolean;
}

/** Why a document or its host was refused. The message is safe to show to the person and the client. */
export class CimdError extends Error {
  override name = 'CimdError';
  constructor(
    readonly reason: 'host_not_allowed' | 'invalid_client_id_url' | 'fetch_failed' | 'invalid_document',
    message: string,
  ) {
    super(message);
  }
}
