// The scope catalogue (SPEC 5.5) and the audience policy (SPEC 5.2, 4.2): the only place either lives.
import type { Client } from '../clients/client.js';

export const IDENTITY_SCOPES = ['openid', 'profile', 'email'] as const;
export const MEMBER_SCOPES = ['account:read', 'account:write'] as const;

/** Operator scopes, in catalogue order. */
export const OPERATOR_SCOPES = [
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
] as const;

export const ALL_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...OPERATOR_SCOPES, ...MEMBER_SCOPES];

/** Plain words for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Confirm who you are',
  profile: 'See your name and picture',
  email: 'See your e-mail address',
  'account:read': 'See your own courses, purchases, events and notifications at this school',
  'account:write': 'Mark your notifications read and change your notification settings',
  'courses:read': 'See the school’s courses',
  'courses:write': 'Create and change the school’s courses',
  'students:read': 'See the school’s students',
  'students:write': 'Change the school’s students',
  'members:read': 'See the school’s members',
  'members:write': 'Change the school’s members',
  'analytics:read': 'See the school’s analytics',
  'curriculum:read': 'See course curricula',
  'curriculum:write': 'Change course curricula',
  'orders:read': 'See the school’s orders',
  'school:read': 'See the school’s settings',
  'school:write': 'Change the school’s settings',
  'appearance:read': 'See the school’s appearance',
  'appearance:write': 'Change the school’s appearance',
  'events:read': 'See the school’s events',
  'events:write': 'Create and change the school’s events',
  'membership_plans:read': 'See membership plans',
  'membership_plans:write': 'Change membership plans',
  'coupons:read': 'See coupons',
  'coupons:write': 'Create and change coupons',
  'posts:read': 'See posts',
  'posts:write': 'Create and change posts',
  'subscriptions:read': 'See subscriptions',
  'subscriptions:write': 'Change subscriptions',
  'digital_products:read': 'See digital products',
  'digital_products:write': 'Create and change digital products',
  'comments:read': 'See comments',
  'lecturers:read': 'See lecturers',
  'lecturers:write': 'Change lecturers',
  'storage:write': 'Upload files',
  'forms:read': 'See form responses',
  'pages:read': 'See pages',
  'pages:write': 'Create and change pages',
};

const MEMBER_AUDIENCE_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...MEMBER_SCOPES];
const OPERATOR_AUDIENCE_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...OPERATOR_SCOPES];

/** Read and identity scopes: what an unreviewed CIMD client may hold (SPEC 4.2 rule 4, SPEC 8). */
export const UNREVIEWED_CIMD_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...OPERATOR_SCOPES.filter((s) => s.endsWith(':read'))];

/** Every scope a client of this audience could ever hold. */
export function audienceScopes(audience: Client['audience']): readonly string[] {
  return audience === 'member' ? MEMBER_AUDIENCE_SCOPES : OPERATOR_AUDIENCE_SCOPES;
}

export type ScopeVerdict = { ok: true; scopes: string[] } | { ok: false; description: string };

/**
 * Checks requested scopes against the catalogue, the audience and what the client may hold.
 * Returns the scopes in catalogue order, or why the request is `invalid_scope`.
 */
export function checkRequestedScopes(client: Client, requested: readonly string[]): ScopeVerdict {
  if (requested.length === 0) return { ok: false, description: 'scope is required; request at least one scope' };
  const unknown = requested.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length > 0) return { ok: false, description: `unknown scope: ${unknown.join(' ')}` };
  const audience = audienceScopes(client.audience);
  const wrongAudience = requested.filter((s) => !audience.includes(s));
  if (wrongAudience.length > 0) {
    const why =
      client.audience === 'operator'
        ? 'is reserved to member applications; operator clients cannot hold it'
        : 'is an operator scope; member applications may request only openid profile email account:read account:write';
    return { ok: false, description: `${wrongAudience.join(' ')} ${why}` };
  }
  const notAllowed = requested.filter((s) => !client.allowedScopes.includes(s));
  if (notAllowed.length > 0) {
    const why =
      client.source === 'cimd'
        ? 'an unreviewed client metadata document client may request read and identity scopes only'
        : 'this client was not granted it';
    return { ok: false, description: `${notAllowed.join(' ')} not allowed: ${why}` };
  }
  return { ok: true, scopes: ALL_SCOPES.filter((s) => requested.includes(s)) };
}

/** The scopes of `needed` that `held` lacks: the check behind every 403 insufficient_scope. */
export function missingScopes(held: readonly string[], needed: readonly string[]): string[] {
  return needed.filter((s) => !held.includes(s));
}

/** True when `granted` covers every scope in `wanted`. */
export function coversScopes(granted: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((s) => granted.includes(s));
}

/** Who may approve a client (SPEC 5.2): member apps anyone with a role; operator clients owners and admins. */
export function mayApprove(client: Pick<Client, 'audience'>, roles: readonly string[]): boolean {
  if (client.audience === 'member') return roles.length > 0;
  return roles.includes('owner') || roles.includes('admin');
}

export function joinScopes(scopes: readonly string[]): string {
  return scopes.join(' ');
}
