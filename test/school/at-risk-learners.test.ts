// Learners at risk (GET /analytics/at_risk_learners): open enrollments (not revoked, not completed) with
// access now, inactive for inactiveDays (or never active) or with access ending within expiringWithinDays;
// never-active first, then longest inactive, then id. Paged through in small pages, every criterion's
// items, order, reasons and total must equal what the rule computed here from the enrollments says, on
// both stores, through the partial indexes of migration 024.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AtRisk, atRiskLearners } from '../../src/school/analytics.repository.js';
import type { Database } from '../../src/storage/schema.js';
import * as m025 from '../../src/storage/migrations/025-open-enrollments-by-activity-day.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DAY, insertCourse, insertPerson, insertSite, openSchoolStore, type SchoolStore, TEST_NOW } from '../helpers/school-fixtures.js';

const NOW = TEST_NOW;

interface Spec {
  activityDaysAgo: number | null;
  /** Days from now the access ends (negative: ended); null: lifetime. */
  expiresInDays: number | null;
  revoked?: boolean;
  completed?: boolean;
}

/** 72 enrollments covering every case: never active, ties of one activity time, old and recent activity, lifetime, expired, expiring. */
function specs(): Spec[] {
  const out: Spec[] = [];
  // 30.25 and 29.75 days ago fall on the UTC day of the 30-day threshold, before and after it.
  const activity = [null, null, 400, 45, 45, 45, 31, 30.25, 29.75, 29, 5, 0];
  const expiry = [null, -3, 2, 20, 45, 400];
  for (let i = 0; i < 72; i++)
    out.push({
      activityDaysAgo: activity[i % activity.length] ?? null,
      expiresInDays: expiry[Math.floor(i / activity.length) % expiry.length] ?? null,
      revoked: i % 17 === 5,
      completed: i % 13 === 9,
    });
  return out;
}

const idOf = (i: number) => `enr_${String(i).padStart(3, '0')}`;

interface Row {
  id: string;
  last: number | null;
  expires: number | null;
  open: boolean;
}

/** The rule, computed here from the specs (or from the enrollments as they are now). */
function expected(
  criteria: { inactiveDays?: number; expiringWithinDays?: number },
  from: Row[] = specRows(),
): Array<{ id: string; reasons: string[] }> {
  const inactiveBefore = criteria.inactiveDays === undefined ? null : NOW - criteria.inactiveDays * DAY;
  const expiringBy = criteria.expiringWithinDays === undefined ? null : NOW + criteria.expiringWithinDays * DAY;
  return from
    .filter((r) => r.open && (r.expires === null || r.expires > NOW))
    .map((r) => ({
      ...r,
      reasons: [
        ...(inactiveBefore !== null && (r.last === null || r.last < inactiveBefore) ? ['inactive'] : []),
        ...(expiringBy !== null && r.expires !== null && r.expires <= expiringBy ? ['expiring'] : []),
      ],
    }))
    .filter((r) => r.reasons.length > 0)
    .sort((a, b) => (a.last ?? 0) - (b.last ?? 0) || (a.id < b.id ? -1 : 1))
    .map((r) => ({ id: r.id, reasons: r.reasons }));
}

function specRows(): Row[] {
  return specs().map((s, i) => ({
    id: idOf(i),
    last: s.activityDaysAgo === null ? null : NOW - s.activityDaysAgo * DAY,
    expires: s.expiresInDays === null ? null : NOW + s.expiresInDays * DAY,
    open: !s.revoked && !s.completed,
  }));
}

/** The site's enrollments as they are now, for the rule. */
async function storedRows(db: Kysely<Database>): Promise<Row[]> {
  const rows = await db.selectFrom('enrollments').where('site_id', '=', 'site_a').selectAll().execute();
  return rows.map((r) => ({
    id: r.id,
    last: r.last_activity_at === null ? null : Number(r.last_activity_at),
    expires: Number(r.lifetime_access) === 1 || r.access_expires_at === null ? null : Number(r.access_expires_at),
    open: r.revoked_at === null && r.completed_at === null,
  }));
}

const CRITERIA = [
  { inactiveDays: 30 },
  { inactiveDays: 1 },
  { inactiveDays: 3650 },
  { expiringWithinDays: 30 },
  { expiringWithinDays: 3650 },
  { inactiveDays: 30, expiringWithinDays: 30 },
  { inactiveDays: 44, expiringWithinDays: 1 },
];

/** Every criterion's total, as answered and as the rule says of the enrollments now. */
async function totals(db: Kysely<Database>): Promise<{ answered: number[]; rule: number[] }> {
  const rows = await storedRows(db);
  const answered: number[] = [];
  const rule: number[] = [];
  for (const criteria of CRITERIA) {
    answered.push((await atRiskLearners({ db, siteId: 'site_a' }, criteria, { first: 1 }, NOW)).total);
    rule.push(expected(criteria, rows).length);
  }
  return { answered, rule };
}

async function seed(db: Kysely<Database>): Promise<void> {
  await insertSite(db, { id: 'site_a', name: 'A', origin: 'http://a.test', variant: 'A' });
  await insertSite(db, { id: 'site_b', name: 'B', origin: 'http://b.test', variant: 'A' });
  await insertCourse(db, 'site_a', 'crs_a');
  await insertCourse(db, 'site_b', 'crs_b');
  for (let i = 0; i < 72; i++) await insertPerson(db, { id: `per_${i}`, email: `p${i}@a.test`, name: `Learner ${i}` });
  const rows = specs().map((s, i) => ({
    id: idOf(i),
    site_id: 'site_a',
    person_id: `per_${i}`,
    course_id: 'crs_a',
    started_at: NOW - 500 * DAY,
    access_expires_at: s.expiresInDays === null ? null : NOW + s.expiresInDays * DAY,
    lifetime_access: s.expiresInDays === null ? 1 : 0,
    completed_at: s.completed ? NOW - DAY : null,
    last_lecture_id: null,
    last_position_seconds: null,
    last_activity_at: s.activityDaysAgo === null ? null : NOW - s.activityDaysAgo * DAY,
    revoked_at: s.revoked ? NOW - DAY : null,
  }));
  await db.insertInto('enrollments').values(rows).execute();
  // Another school's learners never show here.
  await db
    .insertInto('enrollments')
    .values(rows.slice(0, 10).map((r) => ({ ...r, id: `${r.id}_b`, site_id: 'site_b', course_id: 'crs_b' })))
    .execute();
}

/** Every page of a criterion, three at a time. */
async function pagedThrough(db: Kysely<Database>, criteria: { inactiveDays?: number; expiringWithinDays?: number }) {
  const items: AtRisk[] = [];
  const totals = new Set<number>();
  let after: string | undefined;
  for (let pages = 0; pages < 40; pages++) {
    const { page, total } = await atRiskLearners({ db, siteId: 'site_a' }, criteria, { first: 3, after }, NOW);
    totals.add(total);
    items.push(...page.edges.map((e) => e.node));
    if (!page.hasNextPage || !page.endCursor) break;
    after = page.endCursor;
  }
  return { items, totals: [...totals] };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`learners at risk (${dialect})`, () => {
    let s: SchoolStore;
    beforeAll(async () => {
      s = await openSchoolStore(dialect);
      await seed(s.db);
    });
    afterAll(() => s?.close());

    for (const criteria of CRITERIA) {
      it(`${JSON.stringify(criteria)}: every page in order (never active first, then longest inactive, then id), with reasons and the total`, async () => {
        const want = expected(criteria);
        const { items, totals } = await pagedThrough(s.db, criteria);
        expect(items.map((i) => ({ id: i.enrollmentId, reasons: i.reasons }))).toEqual(want);
        expect(totals).toEqual([want.length]);
      });
    }

    it('the expected lists are not trivial: each criterion finds learners, and never-active ones come first', () => {
      expect(expected({ inactiveDays: 30 }).length).toBeGreaterThan(10);
      expect(expected({ expiringWithinDays: 30 }).length).toBeGreaterThan(3);
      expect(expected({ inactiveDays: 1 }).length).toBeGreaterThan(expected({ inactiveDays: 30 }).length);
    });

    it('totals stay right after activity, completion, revocation, access changes and deletions (the per-day counts follow)', async () => {
      const scope = s.db.updateTable('enrollments').where('site_id', '=', 'site_a');
      await scope
        .set({ last_activity_at: NOW - 2 * DAY })
        .where('id', 'in', [idOf(0), idOf(2), idOf(13)])
        .execute();
      await scope
        .set({ last_activity_at: NOW - 30 * DAY - 60_000 })
        .where('id', '=', idOf(9))
        .execute();
      await scope.set({ last_activity_at: null }).where('id', '=', idOf(10)).execute();
      await scope
        .set({ completed_at: NOW })
        .where('id', 'in', [idOf(1), idOf(3)])
        .execute();
      await scope.set({ revoked_at: NOW }).where('id', '=', idOf(4)).execute();
      await scope
        .set({ completed_at: null, revoked_at: null })
        .where('id', 'in', [idOf(5), idOf(7)])
        .execute();
      await scope
        .set({ lifetime_access: 0, access_expires_at: NOW + 10 * DAY })
        .where('id', 'in', [idOf(6), idOf(8)])
        .execute();
      await scope
        .set({ lifetime_access: 1, access_expires_at: null })
        .where('id', 'in', [idOf(14), idOf(15)])
        .execute();
      await scope
        .set({ access_expires_at: NOW - DAY })
        .where('id', '=', idOf(26))
        .execute();
      let { answered, rule } = await totals(s.db);
      expect(answered).toEqual(rule);
      await s.db
        .deleteFrom('enrollments')
        .where('id', 'in', [idOf(11), idOf(12), idOf(50)])
        .execute();
      ({ answered, rule } = await totals(s.db));
      expect(answered).toEqual(rule);
      // A deleted site takes its counts.
      await s.db.deleteFrom('sites').where('id', '=', 'site_b').execute();
      expect(await s.db.selectFrom('open_enrollment_activity').where('site_id', '=', 'site_b').selectAll().execute()).toEqual([]);
    });

    it('the per-day counts of enrollments that existed before migration 025 are counted by it', async () => {
      await m025.down(s.db);
      await s.db
        .updateTable('enrollments')
        .set({ last_activity_at: NOW - 100 * DAY })
        .where('id', '=', idOf(20))
        .execute();
      await m025.up(s.db);
      const { answered, rule } = await totals(s.db);
      expect(answered).toEqual(rule);
    });

    if (dialect === 'postgres') {
      it('concurrent activity updates on several connections each add to their own slot, and the totals stay right', async () => {
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            s.db
              .updateTable('enrollments')
              .set({ last_activity_at: NOW - (i + 1) * 7 * DAY })
              .where('site_id', '=', 'site_a')
              .where('id', 'in', [idOf(30 + i), idOf(40 + i), idOf(60 + i)])
              .execute(),
          ),
        );
        const { answered, rule } = await totals(s.db);
        expect(answered).toEqual(rule);
      });
    }

    if (dialect === 'sqlite') {
      it('the page and the total read the partial indexes of open enrollments', async () => {
        const plan = async (query: string) =>
          (await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(s.db)).rows.map((r) => r.detail).join(' ');
        const open = `site_id = 'site_a' and revoked_at is null and completed_at is null`;
        expect(
          await plan(`select count(*) from enrollments where ${open} and (last_activity_at is null or last_activity_at < 5)`),
        ).toContain('enrollments_open_by_activity');
        expect(
          await plan(
            `select id from enrollments where ${open} and (last_activity_at is null or last_activity_at < 5) order by last_activity_at asc nulls first, id limit 4`,
          ),
        ).not.toContain('TEMP B-TREE');
        expect(
          await plan(
            `select count(*) from enrollments where ${open} and lifetime_access = 0 and access_expires_at > 5 and access_expires_at <= 9`,
          ),
        ).toContain('enrollments_open_by_expiry');
      });
    }
  });
}
