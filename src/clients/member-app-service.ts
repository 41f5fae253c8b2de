// Member OAuth applications as a site operator manages them (SPEC 5.2, issue 11): the rules on names,
// redirect URIs and scopes, and every change with its audit event and the signals that make serving
// processes forget cached copies. The CLI (`client create`) and the admin pages both come through here.
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/audit-log.js';
import type { Clock } from '../kernel/clock.js';
import { hashToken } from '../kernel/hashing.js';
import { randomSecret } from '../kernel/random.js';
import { splitSpaceList } from '../kernel/result.js';
import { IDENTITY_SCOPES, MEMBER_SCOPES } from '../oauth/scopes.js';
import type { RevocationSignals } from '../storage/revocation-signals.js';
import type { Database } from '../storage/schema.js';
import { revokeAppAtSite } from './connections.js';
import { type CreatedMemberApp, createMemberApp, findMemberApp } from './member-apps.repository.js';
import { isLoopbackRedirect } from './redirect-uris.js';

/** A member application may hold identity and member scopes only (SPEC 5.2). */
export const MEMBER_APP_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...MEMBER_SCOPES];
export const MAX_APP_NAME_LENGTH = 100;
export const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;

/** Input a person typed that breaks a rule; the message says which, in words fit to show them. */
export class MemberAppInputError extends Error {
  override name = 'MemberAppInputError';
}

/** The scopes in catalogue order; anything outside the member audience is refused. */
export function parseMemberScopes(requested: readonly string[]): string[] {
  if (requested.length === 0) throw new MemberAppInputError('choose at least one scope');
  const outside = requested.filter((s) => !MEMBER_APP_SCOPES.includes(s));
  if (outside.length > 0) {
    throw new MemberAppInputError(`${outside.join(' ')} not allowed; member applications may hold only ${MEMBER_APP_SCOPES.join(' ')}`);
  }
  return MEMBER_APP_SCOPES.filter((s) => requested.includes(s));
}

/** Scopes written as one space- or comma-separated string (the CLI's --scope). */
export function parseScopeList(input: string): string[] {
  return parseMemberScopes(splitSpaceList(input.replace(/[\s,]+/g, ' ')));
}

/**
 * https anywhere; http only on loopback (RFC 8252 7.3, where any port matches); a private-use scheme
 * in reverse-domain form for native apps (RFC 8252 7.1). Never a fragment (RFC 6749 3.1.2).
 */
export function parseRedirectUri(input: string): string {
  if (input.length > MAX_REDIRECT_URI_LENGTH)
    throw new MemberAppInputError(`a redirect URI may be at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new MemberAppInputError(`redirect URI is not an absolute URI: "${input}"`);
  }
  if (url.hash || input.includes('#')) throw new MemberAppInputError(`redirect URI must not have a fragment: "${input}"`);
  const scheme = url.protocol.slice(0, -1);
  const ok = scheme === 'https' || (scheme === 'http' ? isLoopbackRedirect(input) : scheme.includes('.'));
  if (!ok) {
    throw new MemberAppInputError(
      `redirect URI "${input}" is not allowed: use https, http on a loopback host (127.0.0.1, [::1], localhost), or a reverse-domain scheme such as com.example.app:/callback`,
    );
  }
  return input;
}

/** Several redirect URIs (one per line on the page), each checked, duplicates dropped. */
export function parseRedirectUris(inputs: readonly string[]): string[] {
  const uris = [...new Set(inputs.map((u) => u.trim()).filter((u) => u !== ''))];
  if (uris.length === 0) throw new MemberAppInputError('at least one redirect URI is required');
  if (uris.length > MAX_REDIRECT_URIS) throw new MemberAppInputError(`at most ${MAX_REDIRECT_URIS} redirect URIs`);
  return uris.map(parseRedirectUri);
}

export function parseAppName(input: string): string {
  const name = input.trim();
  if (name === '') throw new MemberAppInputError('the application needs a name');
  if (name.length > MAX_APP_NAME_LENGTH) throw new MemberAppInputError(`a name may be at most ${MAX_APP_NAME_LENGTH} characters`);
  return name;
}

export interface MemberAppServiceContext {
  db: Kysely<Database>;
  clock: Clock;
  /** Absent in the CLI, whose own process caches nothing; serving processes learn of it by data_version or Redis. */
  signals?: RevocationSignals;
}

export interface Actor {
  siteId: string;
  /** The operator who acted; null from the CLI. */
  personId: string | null;
  requestId?: string | null;
}

/** The audit event of a change to an application, by this actor. */
function auditChange(
  db: Kysely<Database>,
  clock: Clock,
  actor: Actor,
  kind: 'client.created' | 'client.secret_rotated' | 'client.updated' | 'client.deleted',
  clientId: string,
  detail: Record<string, string | string[]> = {},
): Promise<void> {
  return recordAudit(
    db,
    {
      siteId: actor.siteId,
      kind,
      personId: actor.personId,
      clientId,
      target: `client:${clientId}`,
      requestId: actor.requestId ?? null,
      detail,
    },
    clock,
  );
}

export interface MemberAppInput {
  name: string;
  kind: 'public' | 'confidential';
  redirectUris: string[];
  scopes: string[];
}

export async function createApplication(ctx: MemberAppServiceContext, actor: Actor, input: MemberAppInput): Promise<CreatedMemberApp> {
  const created = await ctx.db.transaction().execute(async (trx) => {
    const app = await createMemberApp(trx, { siteId: actor.siteId, ...input }, ctx.clock);
    await auditChange(trx, ctx.clock, actor, 'client.created', app.clientId, {
      name: input.name,
      kind: input.kind,
      scope: input.scopes.join(' '),
    });
    return app;
  });
  await ctx.signals?.publish({ kind: 'flush' });
  return created;
}

/** A new secret for a confidential application; the old one stops working at once. Undefined: no such app. */
export async function rotateSecret(ctx: MemberAppServiceContext, actor: Actor, clientId: string): Promise<string | undefined> {
  const app = await findMemberApp(ctx.db, actor.siteId, clientId);
  if (!app) return undefined;
  if (app.kind !== 'confidential') throw new MemberAppInputError('a public application has no secret');
  const secret = `sgs_${randomSecret()}`;
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('member_clients')
      .set({ secret_hash: hashToken(secret) })
      .where('site_id', '=', actor.siteId)
      .where('client_id', '=', clientId)
      .execute();
    await auditChange(trx, ctx.clock, actor, 'client.secret_rotated', clientId);
  });
  await ctx.signals?.publish({ kind: 'flush' });
  return secret;
}

export async function updateRedirectUris(
  ctx: MemberAppServiceContext,
  actor: Actor,
  clientId: string,
  redirectUris: string[],
): Promise<boolean> {
  const changed = await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('member_clients')
      .set({ redirect_uris: JSON.stringify(redirectUris) })
      .where('site_id', '=', actor.siteId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await auditChange(trx, ctx.clock, actor, 'client.updated', clientId, { redirect_uris: redirectUris });
    return true;
  });
  if (changed) await ctx.signals?.publish({ kind: 'flush' });
  return changed;
}

/** Deletes an application: every token and consent it held at the site goes with it, on every node. */
export async function deleteApplication(ctx: MemberAppServiceContext, actor: Actor, clientId: string): Promise<boolean> {
  const app = await findMemberApp(ctx.db, actor.siteId, clientId);
  if (!app) return false;
  await revokeAppAtSite(ctx, actor.siteId, clientId);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('consents').where('site_id', '=', actor.siteId).where('client_id', '=', clientId).execute();
    await trx.deleteFrom('member_clients').where('site_id', '=', actor.siteId).where('client_id', '=', clientId).execute();
    await auditChange(trx, ctx.clock, actor, 'client.deleted', clientId, { name: app.name });
  });
  await ctx.signals?.publish({ kind: 'flush' });
  return true;
}
