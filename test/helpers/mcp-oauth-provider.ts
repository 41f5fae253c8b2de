// An in-memory OAuthClientProvider for the MCP SDK's client-side `auth()` (issue 4, section 3): what an
// MCP client such as an assistant keeps between the steps of the authorization dance. It captures the
// authorization URL instead of opening a browser, so a test can hand it to a Person, and it can record
// every request the SDK makes (pass `provider.fetch` as `fetchFn`), so a test can check what went over
// the wire (registration body, token request parameters) without any hook in the server.
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** One request the SDK made through `provider.fetch`. */
export interface RecordedRequest {
  method: string;
  url: URL;
  /** The body as text (JSON for registration, a form for the token endpoint), or null. */
  body: string | null;
  status: number;
}

export interface InMemoryProviderOptions {
  /** The loopback callback the client listens on, e.g. http://127.0.0.1:61234/callback. */
  redirectUrl: string;
  /** Sent at registration as RFC 7591 client metadata. */
  clientMetadata: OAuthClientMetadata;
  /** An https Client ID Metadata Document URL; the SDK uses it as client_id when the AS supports it. */
  clientMetadataUrl?: string;
}

export class InMemoryOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  /** Every authorization URL the SDK asked to open, last one last. */
  readonly authorizationUrls: URL[] = [];
  /** Every request the SDK sent through `fetch` below. */
  readonly requests: RecordedRequest[] = [];
  /** The `state` of the last authorization request, to compare with the callback. */
  lastState: string | undefined;

  private client: OAuthClientInformationMixed | undefined;
  private savedTokens: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(private readonly options: InMemoryProviderOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.options.clientMetadata;
  }

  state(): string {
    this.lastState = randomBytes(12).toString('base64url');
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): void {
    // Kept unchanged, `issuer` stamp included, as the SDK asks (it binds the registration to one AS).
    this.client = clientInformation;
  }

  tokens(): OAuthTokens | undefined {
    return this.savedTokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier saved: auth() has not started an authorization');
    return this.verifier;
  }

  /** The last authorization URL the SDK produced; fails when it produced none. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('auth() did not call redirectToAuthorization');
    return url;
  }

  /** Requests the SDK sent to a path (any origin), e.g. '/api/oauth/token'. */
  requestsTo(pathname: string): RecordedRequest[] {
    return this.requests.filter((r) => r.url.pathname === pathname);
  }

  /**
   * A fetch for `auth()`'s `fetchFn` that records each request. Bodies the SDK sends are strings or
   * URLSearchParams; both are kept as text.
   */
  readonly fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    const body = init?.body === undefined || init.body === null ? null : String(init.body);
    const response = await fetch(url, init);
    this.requests.push({ method: init?.method ?? 'GET', url, body, status: response.status });
    return response;
  };
}
