// What happens after a request is valid (OIDC Core 3.1.2.3-3.1.2.4): sign in, ask for consent, or
// issue the code. Consent is remembered per person, client and scopes (CONTRACT 4).
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { rolesAtSite } from '../../people/people.repository.js';
import type { Session } from '../../people/sessions.repository.js';
import type { Site } from '../../sites/site.js';
import type { Database } from '../../storage/schema.js';
import { RedirectableAuthorizationError } from '../errors.js';
import { coversScopes, mayApprove } from '../scopes.js';
import type { AuthorizationRequest } from './authorization-request.js';

export type NextStep = { kind: 'sign_in' } | { kind: 'consent' } | { kind: 'issue_code'; personId: string; authTime: number };

export async function storedConsent(db: Kysely<Database>, siteId: string, personId: string, clientId: string): Promise<string[]> {
  const row = await db
    .selectFrom('consents')
    .select('scope')
    .where('site_id', '=', siteId)
    .where('person_id', '=', personId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ? row.scope.split(' ') : [];
}

/** Records consent as the union of what was allowed before and now. */
export async function rememberConsent(
  db: Kysely<Database>,
  siteId: string,
  personId: string,
  clientId: string,
  scopes: readonly string[],
  clock: Clock,
): Promise<void> {
  const merged = [...new Set([...(await storedConsent(db, siteId, personId, clientId)), ...scopes])].join(' ');
  const now = clock.now();
  await db
    .insertInto('consents')
    .values({ site_id: siteId, person_id: personId, client_id: clientId, scope: merged, updated_at: now })
    .onConflict((oc) => oc.columns(['site_id', 'person_id', 'client_id']).doUpdateSet({ scope: merged, updated_at: now }))
    .execute();
}

function redirectError(
  req: AuthorizationRequest,
  code: 'login_required' | 'consent_required' | 'access_denied',
  description: string,
): RedirectableAuthorizationError {
  return new RedirectableAuthorizationError(code, description, req.redirectUri, req.state);
}

/** Throws access_denied when the signed-in person may not approve this client at this site (SPEC 5.2). */
export async function assertMayApprove(db: Kysely<Database>, site: Site, req: AuthorizationRequest, personId: string): Promise<void> {
  const roles = await rolesAtSite(db, site.id, personId);
  if (!mayApprove(req.client, roles)) {
    const who = req.client.audience === 'operator' ? 'only an owner or admin of this site' : 'only a person with a role at this site';
    throw redirectError(req, 'access_denied', `${who} may authorize ${req.client.name}`);
  }
}

/** Why the person must sign in (again) before anything else, or null when the session will do. */
function signInNeeded(req: AuthorizationRequest, session: Session | undefined, now: number): string | null {
  if (!session) return 'the person is not signed in';
  if (req.prompt.has('login')) return 'prompt=login asks for a new sign-in';
  // OIDC Core 3.1.2.1: max_age counts whole seconds since the person authenticated.
  if (req.maxAge !== null && Math.floor((now - session.authTime) / 1000) > req.maxAge)
    return 'the last sign-in is older than max_age allows';
  return null;
}

export async function nextStep(
  db: Kysely<Database>,
  site: Site,
  req: AuthorizationRequest,
  session: Session | undefined,
  now: number,
): Promise<NextStep> {
  const why = signInNeeded(req, session, now);
  if (why !== null || !session) {
    if (req.prompt.has('none')) throw redirectError(req, 'login_required', why ?? 'the person is not signed in');
    return { kind: 'sign_in' };
  }
  // OIDC Core 3.1.2.1: when the signed-in person is not the one id_token_hint names, answer an error
  // rather than act for someone the client did not expect.
  if (req.hintedSubject !== null && req.hintedSubject !== session.personId) {
    throw redirectError(req, 'login_required', 'the signed-in person is not the one id_token_hint names');
  }
  await assertMayApprove(db, site, req, session.personId);
  const consented = await storedConsent(db, site.id, session.personId, req.client.clientId);
  if (!req.prompt.has('consent') && coversScopes(consented, req.scopes)) {
    return { kind: 'issue_code', personId: session.personId, authTime: session.authTime };
  }
  if (req.prompt.has('none')) throw redirectError(req, 'consent_required', 'the person has not allowed these scopes for this client');
  return { kind: 'consent' };
}
