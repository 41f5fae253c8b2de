// Authorization requests for the demo clients (CONTRACT 3) with PKCE S256, and readers for what the
// authorization endpoint answers: the redirect back to the client, the error page, the forms of a page.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { hiddenFields, type Person, type Step } from './person.js';

/** The code_verifier of RFC 7636 appendix B, and its S256 challenge. */
export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = s256(VERIFIER);

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export type DemoClientId = 'academy-member-app' | 'academy-member-web' | 'studio-member-app' | 'demo-vendor';

/** A redirect URI each demo client accepts (loopback ones on a port no demo server uses). */
export const DEMO_REDIRECTS: Record<DemoClientId, string> = {
  'academy-member-app': 'http://127.0.0.1:53123/callback',
  'academy-member-web': 'http://127.0.0.1:8976/callback',
  'studio-member-app': 'http://localhost:41000/callback',
  'demo-vendor': 'http://127.0.0.1:61000/callback',
};

const DEFAULT_SCOPES: Record<DemoClientId, string> = {
  'academy-member-app': 'openid account:read',
  'academy-member-web': 'openid account:read',
  'studio-member-app': 'openid account:read',
  'demo-vendor': 'openid courses:read',
};

/** A parameter value: a string, several values (the parameter repeated), or null to leave it out. */
export type ParamValue = string | readonly string[] | null;

export function randomState(): string {
  return `st-${randomBytes(9).toString('base64url')}`;
}

/**
 * A valid authorization URL at `origin` for a client (demo or not), with every required parameter;
 * `params` replace, repeat (arrays) or remove (null) parameters.
 */
export function authorizationUrl(origin: string, clientId: DemoClientId | string, params: Record<string, ParamValue> = {}): string {
  const demo = clientId in DEMO_REDIRECTS ? (clientId as DemoClientId) : undefined;
  const all: Record<string, ParamValue> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: demo ? DEMO_REDIRECTS[demo] : null,
    scope: demo ? DEFAULT_SCOPES[demo] : null,
    resource: origin,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: randomState(),
    ...params,
  };
  const url = new URL('/oauth/authorize', origin);
  for (const [name, value] of Object.entries(all)) {
    if (value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) url.searchParams.append(name, v);
  }
  return url.href;
}

/** The parameters of a redirect to the request's redirect_uri (same origin and path), or a failed expectation. */
export function callbackParams(location: string | URL | null, requestUrl: string): URLSearchParams {
  expect(location, 'expected a redirect back to the client').not.toBeNull();
  const target = new URL(String(location));
  const redirectUri = new URL(new URL(requestUrl).searchParams.get('redirect_uri') ?? '');
  expect(target.origin + target.pathname).toBe(redirectUri.origin + redirectUri.pathname);
  expect(target.hash).toBe('');
  return target.searchParams;
}

/**
 * RFC 6749 4.1.2.1 and RFC 9207: an error sent back to the redirect URI with `error`,
 * `error_description`, the request's `state` and `iss` = the origin, and no code.
 */
export function expectErrorAt(location: string | URL | null, requestUrl: string, error: string): URLSearchParams {
  const params = callbackParams(location, requestUrl);
  const request = new URL(requestUrl).searchParams;
  expect(params.get('error')).toBe(error);
  expect(params.get('error_description') ?? '').not.toBe('');
  expect(params.get('iss')).toBe(new URL(requestUrl).origin);
  const states = request.getAll('state');
  if (states.length === 1) expect(params.get('state')).toBe(states[0]);
  if (states.length === 0) expect(params.has('state')).toBe(false);
  expect(params.has('code')).toBe(false);
  return params;
}

export function expectErrorRedirect(step: Step, requestUrl: string, error: string): URLSearchParams {
  expect([302, 303], `expected a redirect, got ${step.status}: ${step.html.slice(0, 300)}`).toContain(step.status);
  return expectErrorAt(step.location, requestUrl, error);
}

/** A successful authorization response (RFC 6749 4.1.2, RFC 9207): `code`, `state`, `iss`, nothing else. */
export function expectCodeAt(location: string | URL | null, requestUrl: string): string {
  const params = callbackParams(location, requestUrl);
  expect([...params.keys()].sort()).toEqual(['code', 'iss', 'state']);
  expect(params.get('state')).toBe(new URL(requestUrl).searchParams.get('state'));
  expect(params.get('iss')).toBe(new URL(requestUrl).origin);
  return params.get('code') as string;
}

/** CONTRACT 4: errors that must not be redirected are a 400 HTML page. */
export function expectErrorPage(step: Step): void {
  expect(step.status).toBe(400);
  expect(step.location).toBeNull();
  expect(step.headers.get('content-type')).toMatch(/^text\/html/);
  expect(step.html).not.toMatch(/http-equiv\s*=\s*"?refresh/i);
}

/** The page holds the sign-in form (whatever its status: it is shown again with 4xx after a wrong password). */
export function hasSignInForm(html: string): boolean {
  return html.includes('name="password"') && html.includes('action="/oauth/sign-in"');
}

/** The answer is the sign-in form, shown as a fresh page (200). */
export function isSignInForm(step: Step): boolean {
  return step.status === 200 && hasSignInForm(step.html);
}

export function isConsentPage(step: Step): boolean {
  return step.status === 200 && step.html.includes('name="decision"');
}

export interface Credentials {
  email: string;
  password: string;
}

/** Submits the sign-in form shown in `step` (same origin as `origin`), by default with the person's own credentials. */
export function submitSignIn(p: Person, origin: string, step: Step, credentials: Credentials = p): Promise<Step> {
  return p.request(`${origin}/oauth/sign-in`, {
    form: { ...hiddenFields(step.html), email: credentials.email, password: credentials.password },
  });
}

/**
 * Opens `authorizationUrl` without a session, expects the sign-in form and submits it: the person then
 * holds a session at that origin. Returns the answer to the form (a 303 back to the request on success).
 */
export async function signInThrough(p: Person, authorizationUrl: string, credentials: Credentials = p): Promise<Step> {
  const form = await p.request(authorizationUrl);
  expect(isSignInForm(form), `expected the sign-in form, got ${form.status}`).toBe(true);
  return submitSignIn(p, new URL(authorizationUrl).origin, form, credentials);
}

/** Answers the consent page shown in `step`. */
export function submitDecision(p: Person, origin: string, step: Step, decision: 'allow' | 'deny'): Promise<Step> {
  return p.request(`${origin}/oauth/authorize/decision`, { form: { ...hiddenFields(step.html), decision } });
}

/** Follows same-origin redirects under /oauth/ and stops at the first answer that is not one. */
export async function follow(p: Person, origin: string, first: Step): Promise<Step> {
  let step = first;
  for (let i = 0; i < 5 && (step.status === 302 || step.status === 303) && step.location; i++) {
    const next = new URL(step.location);
    if (next.origin !== origin || !next.pathname.startsWith('/oauth/')) break;
    step = await p.request(next.href);
  }
  return step;
}

// Reading pages without a DOM: tags and their attributes.

export type Attributes = Record<string, string>;

function attributes(source: string): Attributes {
  const out: Attributes = {};
  for (const m of source.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*"([^"]*)")?/g)) out[(m[1] as string).toLowerCase()] = m[2] ?? '';
  return out;
}

/** Every `<tag ...>` of a kind, as its attributes. */
export function tags(html: string, name: string): Attributes[] {
  return [...html.matchAll(new RegExp(`<${name}\\b([^>]*)>`, 'gi'))].map((m) => attributes(m[1] as string));
}

/** Every `<tag ...>text</tag>` of a kind, as its attributes and its text without markup. */
export function elements(html: string, name: string): Array<{ attrs: Attributes; text: string }> {
  return [...html.matchAll(new RegExp(`<${name}\\b([^>]*)>([\\s\\S]*?)</${name}>`, 'gi'))].map((m) => ({
    attrs: attributes(m[1] as string),
    text: (m[2] as string).replace(/<[^>]*>/g, '').trim(),
  }));
}

/**
 * Cookie attributes of one Set-Cookie line, names lowercased, for one of the site's cookies: `base` is
 * `sg_session` or `sg_csrf`, which each site suffixes with its id (and prefixes `__Host-` on https).
 * The entry `name` holds the cookie's full name.
 */
export function setCookie(headers: Headers, base: string): Map<string, string> | undefined {
  const pattern = new RegExp(`^(?:__Host-)?${base}_[A-Za-z0-9_-]+=`);
  const line = headers.getSetCookie().find((l) => pattern.test(l));
  if (!line) return undefined;
  const [pair, ...rest] = line.split(';');
  const eq = (pair ?? '').indexOf('=');
  const out = new Map<string, string>([
    ['name', (pair ?? '').slice(0, eq)],
    ['value', (pair ?? '').slice(eq + 1)],
  ]);
  for (const attr of rest) {
    const eq = attr.indexOf('=');
    out.set((eq < 0 ? attr : attr.slice(0, eq)).trim().toLowerCase(), eq < 0 ? '' : attr.slice(eq + 1).trim());
  }
  return out;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One plain HTTP/1.1 request to the listener with headers fetch would not let us choose (Host). */
export function rawGet(port: number, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
