// Calls the operator REST API (CONTRACT 6) over real HTTP with an operator token, as an operator app does.
import { expect } from 'vitest';
import { REST_OPERATIONS } from '../../src/operations/registry.js';
import type { DemoClient } from './token-flow.js';

export const ADMIN_BASE = '/api/admin/v1';

/** The demo vendor integration (an operator client) at one demo site. */
export const VENDOR = (site: 'academy' | 'studio'): DemoClient => ({
  site,
  clientId: 'demo-vendor',
  redirectUri: 'http://127.0.0.1:61000/callback',
});

/** Every scope some REST operation needs. */
export const ALL_REST_SCOPES = [...new Set(REST_OPERATIONS.flatMap((op) => op.scopes))].join(' ');

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function call(
  origin: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (token) h.authorization = `Bearer ${token}`;
  if (body !== undefined) {
    h['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(`${origin}${ADMIN_BASE}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ type: `urn:schoolgate:problem:${code}`, status, code });
  expect(typeof answer.body.title).toBe('string');
  expect(typeof answer.body.detail).toBe('string');
  expect(JSON.stringify(answer.body)).not.toMatch(/at .*\.(ts|js):\d+/);
}
