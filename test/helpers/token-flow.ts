// Gets authorization codes and token pairs from a running demo server the way a client does: plain
// fetch for the token endpoint, a Person at the browser for the authorization request, PKCE S256.
// Shared by the conformance suites; everything here speaks HTTP only.
import { createHash, randomBytes } from 'node:crypto';
import type { DemoServer } from './demo-server.js';
import { type Person, person } from './person.js';

export type DemoSite = 'academy' | 'studio';

/** A demo member application of CONTRACT 3 and the redirect URI a test uses for it. */
export interface DemoClient {
  site: DemoSite;
  clientId: string;
  /** client_secret_post secret of a confidential client. */
  secret?: string;
  redirectUri: string;
}

export const DEMO_CLIENTS = {
  academyApp: { site: 'academy', clientId: 'academy-member-app', redirectUri: 'http://127.0.0.1:53123/callback' },
  academyWeb: {
    site: 'academy',
    clientId: 'academy-member-web',
    secret: 'academy-member-secret',
    redirectUri: 'http://127.0.0.1:8976/callback',
  },
  studioApp: { site: 'studio', clientId: 'studio-member-app', redirectUri: 'http://localhost:41000/callback' },
} as const satisfies Record<string, DemoClient>;

/** The scopes every demo member application may hold. */
export const FULL_SCOPE = 'openid profile email account:read account:write';

/** RFC 7636 4.1 / 4.2: a 43-character verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export function s256(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest('base64url');
}

export interface AuthorizationOptions {
  scope?: string;
  /** Defaults to the site's origin; pass a value (or null to leave it out) to test resource handling. */
  resource?: string | null;
  nonce?: string;
  state?: string;
  prompt?: string;
  challenge?: string;
}

/** The authorization request URL for a demo client at its own site. */
export function authorizationUrl(server: DemoServer, client: DemoClient, challenge: string, options: AuthorizationOptions = {}): string {
  const origin = server[client.site];
  const url = new URL('/oauth/authorize', origin);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('scope', options.scope ?? FULL_SCOPE);
  if (options.resource !== null) url.searchParams.set('resource', options.resource ?? origin);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', options.state ?? randomBytes(8).toString('base64url'));
  if (options.nonce !== undefined) url.searchParams.set('nonce', options.nonce);
  if (options.prompt !== undefined) url.searchParams.set('prompt', options.prompt);
  return url.href;
}

export interface IssuedCode {
  client: DemoClient;
  origin: string;
  code: string;
  verifier: string;
  /** The full redirect back to the client. */
  callback: URL;
}

export interface CodeOptions extends AuthorizationOptions {
  /** The person at the browser; reuse one to keep the session and consent (sign-ins are rate limited). */
  who?: Person;
}

/** Runs the authorization request through sign-in and consent and returns the code with its PKCE verifier. */
export async function getCode(server: DemoServer, client: DemoClient, options: CodeOptions = {}): Promise<IssuedCode> {
  const { verifier, challenge } = pkcePair();
  const url = authorizationUrl(server, client, options.challenge ?? challenge, options);
  const callback = await (options.who ?? person('student')).authorize(url);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in the redirect: ${callback.href}`);
  return { client, origin: server[client.site], code, verifier, callback };
}

export interface FormResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export type FormParams = Record<string, string | readonly string[] | undefined>;

/** POSTs an application/x-www-form-urlencoded body; repeated values become repeated parameters. */
export async function postForm<T = Record<string, unknown>>(
  url: string,
  params: FormParams,
  headers: Record<string, string> = {},
): Promise<FormResponse<T>> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const v of typeof value === 'string' ? [value] : value) form.append(name, v);
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** client_id, and client_secret for a confidential client (client_secret_post). */
export function clientCredentials(client: DemoClient): FormParams {
  return client.secret !== undefined ? { client_id: client.clientId, client_secret: client.secret } : { client_id: client.clientId };
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

/** The authorization_code request for an issued code; `overrides` replace (or with undefined remove) parameters. */
export function exchangeCode(issued: IssuedCode, overrides: FormParams = {}): Promise<FormResponse> {
  return postForm(`${issued.origin}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: issued.client.redirectUri,
    code_verifier: issued.verifier,
    resource: issued.origin,
    ...clientCredentials(issued.client),
    ...overrides,
  });
}

/** The refresh_token request of a client at its own site. */
export function refresh(server: DemoServer, client: DemoClient, refreshToken: string, extra: FormParams = {}): Promise<FormResponse> {
  return postForm(`${server[client.site]}/api/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...clientCredentials(client),
    ...extra,
  });
}

/** Asserts a successful token response and returns it typed. */
export function expectTokens(res: FormResponse): TokenSet {
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as unknown as TokenSet;
}

/** Authorization code + PKCE + exchange: a fresh token pair (and ID token with openid). */
export async function getTokens(server: DemoServer, client: DemoClient, options: CodeOptions = {}): Promise<TokenSet> {
  return expectTokens(await exchangeCode(await getCode(server, client, options)));
}

/** GET UserInfo with a bearer token (or any Authorization header value). */
export async function userInfo(origin: string, accessToken: string | undefined, authorization?: string): Promise<FormResponse> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  else if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`;
  const res = await fetch(`${origin}/api/oauth/userinfo`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Revokes a token as the given client (RFC 7009). */
export function revoke(server: DemoServer, client: DemoClient, token: string, extra: FormParams = {}): Promise<FormResponse> {
  return postForm(`${server[client.site]}/api/oauth/revoke`, { token, ...clientCredentials(client), ...extra });
}

/** Introspects a token (RFC 7662) at an origin with the given credentials. */
export function introspect(origin: string, token: string, credentials: FormParams, extra: FormParams = {}): Promise<FormResponse> {
  return postForm(`${origin}/api/oauth/introspect`, { token, ...credentials, ...extra });
}
