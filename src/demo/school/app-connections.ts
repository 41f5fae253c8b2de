// The demo's connected apps (issue 11): some of the generated learners allowed the Academy's member app
// over the last weeks, and it used their accounts most days, so /admin/connections and the learners'
// /account/apps have real records to show. The CONTRACT 3 people are left untouched (tests and readers
// expect them to meet the consent page the first time). Token values are random and thrown away: only
// their hashes are stored, so nobody can use them.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { utcDayOf } from '../../kernel/calendar-days.js';
import { hashToken } from '../../kernel/hashing.js';
import type { Database } from '../../storage/schema.js';
import { insertAll, random } from './seeding.js';

const DAY = 86_400_000;
const CLIENT_ID = 'academy-member-app';
const SCOPE = 'openid profile account:read account:write';
/** What the app reads most days, and what it sometimes changes (the member tools and fields it would use). */
const READS = ['graphql:viewer.enrollments', 'graphql:viewer.notifications', 'mcp:list_my_enrollments', 'userinfo'];
const WRITES = ['mcp:mark_notifications_read'];
const USERS = 18;
const DAYS_OF_USE = 30;

export async function seedAppConnections(
  db: Kysely<Database>,
  siteId: string,
  now: number,
  learners: ReadonlyArray<{ id: string; joined: number }>,
): Promise<void> {
  const next = random(20261125);
  const users = learners.filter((_, i) => i % 6 === 1).slice(0, USERS);
  const grants: Record<string, unknown>[] = [];
  const refreshTokens: Record<string, unknown>[] = [];
  const consents: Record<string, unknown>[] = [];
  const usage: Record<string, unknown>[] = [];
  users.forEach((learner, i) => {
    const allowedDaysAgo = 3 + Math.floor(next() * 25);
    const allowedAt = Math.max(learner.joined, now - allowedDaysAgo * DAY);
    const grantId = `grt_demo_${String(i + 1).padStart(2, '0')}`;
    const base = { site_id: siteId, client_id: CLIENT_ID, person_id: learner.id, scope: SCOPE, resource: '' };
    grants.push({ ...base, id: grantId, created_at: allowedAt, revoked_at: null });
    consents.push({ site_id: siteId, person_id: learner.id, client_id: CLIENT_ID, scope: SCOPE, updated_at: allowedAt });
    // The family's current refresh token, last rotated within the last day or two.
    const rotatedAt = now - Math.floor(next() * 2 * DAY);
    refreshTokens.push({
      ...base,
      token_hash: hashToken(randomBytes(32).toString('base64url')),
      grant_id: grantId,
      created_at: rotatedAt,
      expires_at: rotatedAt + 30 * DAY,
      rotated_at: null,
      revoked_at: null,
      replay_sealed: null,
      replay_until: null,
    });
    for (let d = Math.min(allowedDaysAgo, DAYS_OF_USE); d >= 0; d--) {
      if (next() < 0.35) continue;
      const dayStart = Math.floor((now - d * DAY) / DAY) * DAY;
      const day = utcDayOf(dayStart);
      const lastAt = Math.min(now, dayStart + Math.floor(next() * DAY));
      const used = (what: string, write: boolean, most: number) =>
        usage.push({
          site_id: siteId,
          client_id: CLIENT_ID,
          person_id: learner.id,
          day,
          what,
          write: write ? 1 : 0,
          requests: 1 + Math.floor(next() * most),
          last_at: lastAt,
        });
      for (const what of READS) if (next() >= 0.4) used(what, false, 12);
      if (next() < 0.3) for (const what of WRITES) used(what, true, 3);
    }
  });
  // The resource is the site's origin, which follows PORT in demo mode: bound at seed time like real grants.
  const site = await db.selectFrom('sites').select('origin').where('id', '=', siteId).executeTakeFirstOrThrow();
  const bind = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, resource: site.origin }));
  await insertAll(db, 'grants', bind(grants));
  await insertAll(db, 'refresh_tokens', bind(refreshTokens));
  await insertAll(db, 'consents', consents);
  await insertAll(db, 'app_usage', usage);
}
