// Password sign-in with a per-account lockout after repeated failures (issue 2, section 2).
// The throttle is kept in the database so every node of a deployment sees the same count.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { decoyPasswordHash, verifyPassword } from '../kernel/password.js';
import type { Database } from '../storage/schema.js';
import { findPersonByEmail, normaliseEmail } from './people.repository.js';

export type SignInResult =
  | { kind: 'ok'; personId: string }
  | { kind: 'wrong' }
  | { kind: 'locked'; retryAfterSeconds: number }
  /** The password was right, but the site's operators suspended the person here. */
  | { kind: 'suspended'; personId: string };

export interface SignInPolicy {
  maxFailures: number;
  lockoutSeconds: number;
}

export async function signIn(
  db: Kysely<Database>,
  siteId: string,
  emailInput: string,
  password: string,
  policy: SignInPolicy,
  clock: Clock,
): Promise<SignInResult> {
  const email = normaliseEmail(emailInput);
  const now = clock.now();
  const throttle = await db
    .selectFrom('sign_in_throttle')
    .select(['failures', 'locked_until'])
    .where('site_id', '=', siteId)
    .where('email', '=', email)
    .executeTakeFirst();
  if (throttle && throttle.locked_until > now) {
    return { kind: 'locked', retryAfterSeconds: Math.ceil((throttle.locked_until - now) / 1000) };
  }

  const person = await findPersonByEmail(db, email);
  // Verify against a decoy for unknown addresses so the answer time does not reveal who has an account.
  const ok = await verifyPassword(password, person?.password_hash ?? (await decoyPasswordHash()));
  if (ok && person) {
    if (throttle) await db.deleteFrom('sign_in_throttle').where('site_id', '=', siteId).where('email', '=', email).execute();
    // Told only after the right password, so the answer reveals nothing to someone guessing.
    const suspension = await db
      .selectFrom('site_suspensions')
      .select('suspended_at')
      .where('site_id', '=', siteId)
      .where('person_id', '=', person.id)
      .executeTakeFirst();
    if (suspension) return { kind: 'suspended', personId: person.id };
    return { kind: 'ok', personId: person.id };
  }

  // A lapsed lockout starts a fresh count.
  const failures = (throttle && throttle.locked_until === 0 ? throttle.failures : 0) + 1;
  const lockedUntil = failures >= policy.maxFailures ? now + policy.lockoutSeconds * 1000 : 0;
  await db
    .insertInto('sign_in_throttle')
    .values({ site_id: siteId, email, failures, locked_until: lockedUntil, updated_at: now })
    .onConflict((oc) => oc.columns(['site_id', 'email']).doUpdateSet({ failures, locked_until: lockedUntil, updated_at: now }))
    .execute();
  if (lockedUntil > 0) return { kind: 'locked', retryAfterSeconds: policy.lockoutSeconds };
  return { kind: 'wrong' };
}
