// The operation registry (ARCHITECTURE "Operations"): every school operation once, and the one rule of who
// may use which (SPEC 5.2 audiences, 5.4 anonymous access, 5.5 scopes, SPEC 1 variant differences).
// /mcp `tools/list`, its scope check before `tools/call`, and the operator API later all ask this module.
import { missingScopes } from '../oauth/scopes.js';
import { type Site, variantCapabilities } from '../sites/site.js';
import { MEMBER_OPERATIONS } from './member-operations.js';
import type { Operation } from './operation.js';
import { OPERATOR_OPERATIONS } from './operator/operator-operations.js';
import { PUBLIC_OPERATIONS } from './public-operations.js';

export const OPERATIONS: readonly Operation[] = [...PUBLIC_OPERATIONS, ...MEMBER_OPERATIONS, ...OPERATOR_OPERATIONS];

const BY_NAME = new Map<string, Operation>();
for (const operation of OPERATIONS) {
  // Checked once at load, so a mistake in a definition stops the server instead of opening a tool to all.
  if (BY_NAME.has(operation.name)) throw new Error(`operation ${operation.name} is defined twice`);
  if ((operation.audience === 'public') !== (operation.scopes.length === 0)) {
    throw new Error(`operation ${operation.name}: public operations need no scope, and every other operation needs one`);
  }
  if (operation.rest && operation.audience !== 'operator')
    throw new Error(`operation ${operation.name}: only operator operations have a REST route`);
  BY_NAME.set(operation.name, operation);
}

/** The operation behind an MCP tool name; REST-only operations are no tools. */
export function findTool(name: string): Operation | undefined {
  const operation = BY_NAME.get(name);
  return operation?.tool ? operation : undefined;
}

/** Who is asking: anonymous (no Authorization header) or the holder of a valid token with its scopes. */
export interface Caller {
  authenticated: boolean;
  scopes: readonly string[];
}

export const ANONYMOUS: Caller = { authenticated: false, scopes: [] };

/** False when the site's variant lacks what the operation needs (the inbox exists on variant A only). */
export function availableOn(operation: Operation, site: Site): boolean {
  return operation.requires === null || variantCapabilities(site.variant)[operation.requires];
}

export type Access =
  | { kind: 'allowed' }
  /** Anonymous caller, non-public operation: a token with these scopes is needed. */
  | { kind: 'needs_token'; scopes: readonly string[] }
  /** Token holder without every scope the operation needs; `scopes` names all of them (MCP 2026-07-28). */
  | { kind: 'insufficient_scope'; scopes: readonly string[]; missing: readonly string[] };

/**
 * Whether a caller may use an operation that the site offers. Scopes alone decide among token holders:
 * the audience policy of oauth/scopes.ts already keeps `account:*` from operator clients and operator
 * scopes from member applications, so a scope implies its audience.
 */
export function accessFor(operation: Operation, caller: Caller): Access {
  if (operation.scopes.length === 0) return { kind: 'allowed' };
  if (!caller.authenticated) return { kind: 'needs_token', scopes: operation.scopes };
  const missing = missingScopes(caller.scopes, operation.scopes);
  return missing.length === 0 ? { kind: 'allowed' } : { kind: 'insufficient_scope', scopes: operation.scopes, missing };
}

/** Exactly the MCP tools this caller may use at this site, in registry order. */
export function operationsFor(site: Site, caller: Caller): Operation[] {
  return OPERATIONS.filter(
    (operation) => operation.tool && availableOn(operation, site) && accessFor(operation, caller).kind === 'allowed',
  );
}

/** The operations of the operator REST API (CONTRACT 6), in registry order. */
export const REST_OPERATIONS: readonly Operation[] = OPERATIONS.filter((operation) => operation.rest !== null);
