// Speaks to the member GraphQL API over real HTTP (SPEC 4.3): the variant paths, a POST helper that
// returns status, headers and the parsed body, and readers for WWW-Authenticate challenges.
import { expect } from 'vitest';
import type { DemoServer } from '../helpers/demo-server.js';
import type { DemoSite } from '../helpers/token-flow.js';

/** `{graphql_path}` per demo site (CONTRACT 3): Demo Academy is variant A, Demo Studio variant B. */
export const GRAPHQL_PATH = { academy: '/member/graphql', studio: '/account/graphql' } as const satisfies Record<DemoSite, string>;

/** The other variant's path, which does not exist at that site. */
export const OTHER_PATH = { academy: '/account/graphql', studio: '/member/graphql' } as const satisfies Record<DemoSite, string>;

export const SITES: readonly DemoSite[] = ['academy', 'studio'];

/** A JSON value as a GraphQL response carries it; assertions read it without casts at each step. */
export interface Json {
  [key: string]: Json | Json[] | string | number | boolean | null | undefined;
}

export interface GraphqlError {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: { data?: Json | null; errors?: GraphqlError[]; error?: string; error_description?: string } | undefined;
}

export interface PostOptions {
  /** An access token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A raw Authorization header value (wins over token). */
  authorization?: string;
  headers?: Record<string, string>;
  method?: string;
}

/** Sends a raw body (any value is JSON-encoded unless it is already a string). */
export async function send(url: string, body: unknown, options: PostOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const method = options.method ?? 'POST';
  const res = await fetch(url, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' || body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: HttpAnswer['json'];
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POSTs `{ query, variables?, operationName? }` to a demo site's own GraphQL path. */
export function graphql(
  server: DemoServer,
  site: DemoSite,
  token: string | undefined,
  query: string,
  extra: { variables?: Record<string, unknown>; operationName?: string } = {},
): Promise<HttpAnswer> {
  return send(`${server[site]}${GRAPHQL_PATH[site]}`, { query, ...extra }, { token });
}

/** Asserts a 200 answer without errors and returns its `data`. */
export function dataOf(answer: HttpAnswer): Json {
  expect(answer.json?.errors, JSON.stringify(answer.json?.errors)).toBeUndefined();
  expect(answer.status).toBe(200);
  return answer.json?.data as Json;
}

/** The `viewer` of a successful answer. */
export function viewerOf(answer: HttpAnswer): Json {
  return dataOf(answer).viewer as Json;
}

export function nodesOf(connection: Json[string]): Json[] {
  return (connection as { nodes: Json[] }).nodes;
}

/** The auth-params of a `WWW-Authenticate: Bearer ...` challenge. */
export function challenge(answer: HttpAnswer): Record<string, string> {
  const header = answer.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const m of header.slice('Bearer '.length).matchAll(/([a-z_]+)="([^"]*)"/g)) params[m[1] as string] = m[2] as string;
  return params;
}

/** 401 invalid_token with a challenge naming the site's protected resource metadata (SPEC 5.3, 7; CONTRACT 5). */
export function expectInvalidToken(answer: HttpAnswer, origin: string): Record<string, string> {
  expect(answer.status).toBe(401);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  const params = challenge(answer);
  expect(params.error).toBe('invalid_token');
  expect(params.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource`);
  expect(answer.json?.error).toBe('invalid_token');
  expect(answer.json?.data).toBeUndefined();
  return params;
}

/** 403 insufficient_scope with a challenge naming the scope and the protected resource metadata. */
export function expectInsufficientScope(answer: HttpAnswer, origin: string, scope: string): Record<string, string> {
  expect(answer.status).toBe(403);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  const params = challenge(answer);
  expect(params.error).toBe('insufficient_scope');
  expect(params.scope?.split(' ')).toContain(scope);
  expect(params.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource`);
  expect(answer.json?.error).toBe('insufficient_scope');
  expect(answer.json?.data).toBeUndefined();
  return params;
}

/** A GraphQL-style error answer (no data) with this status; returns its errors. */
export function expectGraphqlErrors(answer: HttpAnswer, status: number): GraphqlError[] {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('www-authenticate')).toBeNull();
  const errors = answer.json?.errors ?? [];
  expect(errors.length, answer.text).toBeGreaterThan(0);
  for (const error of errors) expect(typeof error.message).toBe('string');
  return errors;
}

/** A selection of `count` aliased copies of a field. */
export function aliases(field: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');
}
