// Analytics over the daily roll-ups (CONTRACT 6 analytics): the overview against the previous period of
// the same length, time series by day, week or month (optionally by course or product), per-course
// figures, and learners at risk. Days are the site's local days (rollups.ts); ranges are inclusive.
import { sql } from 'kysely';
import { setBounded } from '../kernel/bounded-map.js';
import { DAY_MS, dayNumber, dayString, weekdayOf } from '../kernel/calendar-days.js';
import { jsonArray, jsonArrayOf, startsWith } from '../storage/dialect.js';
import { stampCurriculum } from './curriculum-stamp.js';
import { distinctActiveBy } from './learner-activity.js';
import { countEnrollments } from './operator-enrollments.repository.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import { SCHOOL, SUM_METRICS, type SumMetric } from './rollups.js';
import type { SiteScope } from './scope.js';

export type Metric = SumMetric | 'active_learners';
export type Interval = 'day' | 'week' | 'month';
export type GroupBy = 'course' | 'product';

type Range = { from: string; to: string };

/** The school's sums per metric over each range, summed in one query. */
async function sums(scope: SiteScope, ranges: readonly Range[]): Promise<Array<Map<string, number>>> {
  // YYYY-MM-DD strings sort as days do.
  const days = ranges.flatMap((r) => [r.from, r.to]).sort();
  const lo = days[0] ?? '';
  const hi = days.at(-1) ?? '';
  const rows = await scope.db
    .selectFrom('daily_rollups')
    .where('site_id', '=', scope.siteId)
    // Naming the metrics lets the (site, metric, dim, day) key seek each metric's days; without them it
    // read every roll-up row of the site (0.74 ms against 0.56 ms at a year of a 100,000-learner school).
    .where('metric', 'in', SUM_METRICS)
    .where('dim', '=', SCHOOL)
    .where('day', '>=', lo)
    .where('day', '<=', hi)
    .groupBy('metric')
    .select([
      'metric',
      ...ranges.map((r, i) => sql<number>`sum(case when day >= ${r.from} and day <= ${r.to} then value else 0 end)`.as(`r${i}`)),
    ])
    .execute();
  return ranges.map((_, i) => new Map(rows.map((row) => [row.metric, Number((row as Record<string, unknown>)[`r${i}`] ?? 0)])));
}

export interface Figures {
  revenueCents: number;
  refundsCents: number;
  orders: number;
  newEnrollments: number;
  completions: number;
  activeLearners: number;
}

/** The figures of each range: one query for the sums of all, one for the activity bitmaps of all. */
async function figures(scope: SiteScope, ranges: readonly Range[]): Promise<Figures[]> {
  const [totals, active] = await Promise.all([sums(scope, ranges), distinctActiveBy(scope.db, scope.siteId, ranges)]);
  return ranges.map((_, i) => {
    const s = totals[i] ?? new Map<string, number>();
    return {
      revenueCents: s.get('revenue') ?? 0,
      refundsCents: s.get('refunds') ?? 0,
      orders: s.get('orders') ?? 0,
      newEnrollments: s.get('new_enrollments') ?? 0,
      completions: s.get('completions') ?? 0,
      activeLearners: active[i] ?? 0,
    };
  });
}

export interface Overview {
  from: string;
  to: string;
  previousFrom: string;
  previousTo: string;
  current: Figures;
  previous: Figures;
}

/** The figures of [from, to] and of the same number of days just before. */
export async function overview(scope: SiteScope, from: string, to: string): Promise<Overview> {
  const length = dayNumber(to) - dayNumber(from) + 1;
  const previousTo = dayString(dayNumber(from) - 1);
  const previousFrom = dayString(dayNumber(from) - length);
  const [current, previous] = await figures(scope, [
    { from, to },
    { from: previousFrom, to: previousTo },
  ]);
  if (!current || !previous) throw new Error('figures answer one entry per range');
  return { from, to, previousFrom, previousTo, current, previous };
}

/** The first day of the bucket a day falls in: itself, the Monday of its week, the 1st of its month. */
export function bucketOf(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 8)}01`;
  const n = dayNumber(day);
  return dayString(n - weekdayOf(n));
}

/** A range's buckets: their first days in order, and each day of the range to its bucket's place among them. */
export interface Buckets {
  readonly starts: readonly string[];
  readonly placeOf: ReadonlyMap<string, number>;
}

/**
 * Every bucket start from the one holding `from` to the one holding `to`, and each day of the range to its
 * bucket's place among them: a series reads thousands of day values, and working out each one's bucket
 * from its date cost more than the rest of the series. The same ranges come back request after request (a
 * dashboard's year by day), so they are kept: a year's buckets took 0.3 ms to work out.
 */
export function buckets(from: string, to: string, interval: Interval): Buckets {
  const key = `${from}/${to}/${interval}`;
  const known = bucketsKept.get(key);
  if (known) return known;
  const worked = bucketsOf(from, to, interval);
  setBounded(bucketsKept, key, worked, BUCKETS_KEPT);
  return worked;
}

/** Ranges whose buckets are kept; a year's take about 30 KB. */
const BUCKETS_KEPT = 200;
const bucketsKept = new Map<string, Buckets>();

function bucketsOf(from: string, to: string, interval: Interval): Buckets {
  const starts: string[] = [];
  const placeOf = new Map<string, number>();
  const first = dayNumber(from);
  const last = dayNumber(to);
  for (let n = first; n <= last; n++) {
    const day = dayString(n);
    // A new bucket begins on the first day of the range and then on each Monday or 1st of a month;
    // day 0 (1970-01-01) was a Thursday (before it, % answers -0 for a Monday, which equals 0).
    const begins = n === first || interval === 'day' || (interval === 'week' ? (n + 3) % 7 === 0 : day.endsWith('-01'));
    if (begins) starts.push(bucketOf(day, interval));
    placeOf.set(day, starts.length - 1);
  }
  return { starts, placeOf };
}

export interface Series {
  /** '' for the school; `course:<id>`, `product:<type>:<id>` when grouped. */
  key: string;
  points: Array<{ start: string; value: number }>;
}

/** A metric over time; with groupBy, one series per course or product with a value in the range. */
export async function timeseries(
  scope: SiteScope,
  metric: Metric,
  from: string,
  to: string,
  interval: Interval,
  groupBy?: GroupBy,
): Promise<Series[]> {
  const { starts, placeOf } = buckets(from, to, interval);
  const series = new Map<string, number[]>();
  const at = (key: string) => {
    let values = series.get(key);
    if (!values) {
      values = starts.map(() => 0);
      series.set(key, values);
    }
    return values;
  };
  if (metric === 'active_learners') {
    // Distinct learners per bucket, each bucket cut to the range.
    const ranges = starts.map((start, i) => {
      const next = starts[i + 1];
      return { from: start < from ? from : start, to: next === undefined ? to : dayString(dayNumber(next) - 1) };
    });
    const values = at(SCHOOL);
    (await distinctActiveBy(scope.db, scope.siteId, ranges)).forEach((n, i) => {
      values[i] = n;
    });
  } else {
    // One row per series, its days and their values as two JSON arrays: a year by day for 19 products is
    // 7,000 roll-ups, and read as rows, building them took most of the request (bench/RESULTS.md, eighteenth
    // session). Arrays of days and of numbers parse faster than one object keyed by day (0.4 ms a year).
    const rows = await scope.db
      .selectFrom('daily_rollups')
      .where('site_id', '=', scope.siteId)
      .where('metric', '=', metric)
      .$if(groupBy === undefined, (qb) => qb.where('dim', '=', SCHOOL))
      .$if(groupBy !== undefined, (qb) => qb.where(startsWith(scope.db, 'dim', `${groupBy}:`)))
      .where('day', '>=', from)
      .where('day', '<=', to)
      .groupBy('dim')
      .orderBy('dim')
      .select(['dim', jsonArrayOf<string>(scope.db, 'day').as('days'), jsonArrayOf<number | string>(scope.db, 'value').as('sums')])
      .execute();
    if (groupBy === undefined) at(SCHOOL);
    for (const r of rows) {
      const values = at(r.dim);
      const days = jsonArray(r.days);
      const sums = jsonArray(r.sums);
      for (let j = 0; j < days.length; j++) {
        const i = placeOf.get(days[j] as string);
        // The statement read only days of the range, each of which has its place.
        if (i !== undefined) values[i] = (values[i] ?? 0) + Number(sums[j]);
      }
    }
  }
  return [...series].map(([key, values]) => ({ key, points: starts.map((start, i) => ({ start, value: values[i] ?? 0 })) }));
}

export interface CourseAnalytics {
  enrolled: number;
  started: number;
  completed: number;
  completionRate: number;
  averageProgressPercent: number;
  dropOff: { lectureId: string; title: string; learners: number } | null;
}

/**
 * Figures of one course; null when the site has no such course. They are the enrollments' own figures,
 * kept per course as they change (migrations 023 and 028): enrolled, started, completed, lectures
 * completed, and how many learners not yet done stopped at each lecture (the first lecture, in course
 * order, they have not completed).
 */
export async function courseAnalytics(scope: SiteScope, courseId: string): Promise<CourseAnalytics | null> {
  const course = await scope.db
    .selectFrom('courses')
    .select('id')
    .where('site_id', '=', scope.siteId)
    .where('id', '=', courseId)
    .executeTakeFirst();
  if (!course) return null;
  // After a change of curriculum order the stops are recomputed before they are read.
  await stampCurriculum(scope, courseId);
  const [lectures, enrolled, figures, stops] = await Promise.all([
    scope.db
      .selectFrom('lectures as l')
      .innerJoin('course_sections as s', 's.id', 'l.section_id')
      .where('l.site_id', '=', scope.siteId)
      .where('l.course_id', '=', courseId)
      .select(['l.id', 'l.title'])
      .orderBy('s.position')
      .orderBy('l.position')
      .orderBy('l.id')
      .execute(),
    countEnrollments(scope, { courseId }),
    scope.db
      .selectFrom('course_learning_counts')
      .where('site_id', '=', scope.siteId)
      .where('course_id', '=', courseId)
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number | string>('started'), eb.lit(0)).as('started'),
        eb.fn.coalesce(eb.fn.sum<number | string>('completed'), eb.lit(0)).as('completed'),
        eb.fn.coalesce(eb.fn.sum<number | string>('lectures_done'), eb.lit(0)).as('lectures_done'),
      ])
      .executeTakeFirstOrThrow(),
    scope.db
      .selectFrom('course_stops')
      .where('site_id', '=', scope.siteId)
      .where('course_id', '=', courseId)
      .groupBy('lecture_id')
      .select((eb) => ['lecture_id', eb.fn.sum<number | string>('n').as('n')])
      .execute(),
  ]);
  const completed = Number(figures.completed);
  const stopsAt = new Map(stops.map((s) => [s.lecture_id, Number(s.n)]));
  let dropOff: CourseAnalytics['dropOff'] = null;
  for (const l of lectures) {
    const n = stopsAt.get(l.id) ?? 0;
    if (n > 0 && (dropOff === null || n > dropOff.learners)) dropOff = { lectureId: l.id, title: l.title, learners: n };
  }
  return {
    enrolled,
    started: Number(figures.started),
    completed,
    completionRate: enrolled === 0 ? 0 : Math.round((completed / enrolled) * 1000) / 1000,
    averageProgressPercent:
      enrolled === 0 || lectures.length === 0 ? 0 : Math.round((Number(figures.lectures_done) * 100) / (enrolled * lectures.length)),
    dropOff,
  };
}

export interface AtRisk {
  enrollmentId: string;
  studentId: string;
  studentName: string;
  courseId: string;
  courseTitle: string;
  lastActivityAt: number | null;
  accessExpiresAt: number | null;
  reasons: Array<'inactive' | 'expiring'>;
}

const AT_RISK = 'at_risk';

/**
 * How many open enrollments with access are inactive since `inactiveBefore` (or expiring by `expiringBy`).
 * Those with access for good: the days before inactiveBefore's UTC day from the counts the enrollments'
 * triggers keep per day of last activity (migration 025), and that day's own stretch from the activity
 * index. Those whose access ends: the ones that have not ended yet, from the expiry index (migration 024).
 */
async function countAtRisk(scope: SiteScope, inactiveBefore: number, expiringBy: number | null, now: number): Promise<{ n: number }> {
  const firstDay = Math.floor(inactiveBefore / DAY_MS);
  const open = scope.db
    .selectFrom('enrollments as e')
    .where('e.site_id', '=', scope.siteId)
    .where('e.revoked_at', 'is', null)
    .where('e.completed_at', 'is', null);
  const [days, dayOf, timed] = await Promise.all([
    scope.db
      .selectFrom('open_enrollment_activity')
      .where('site_id', '=', scope.siteId)
      .where('day', '<', firstDay)
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
      .executeTakeFirstOrThrow(),
    open
      .where((eb) => eb.or([eb('e.lifetime_access', '=', 1), eb('e.access_expires_at', 'is', null)]))
      .where('e.last_activity_at', '>=', firstDay * DAY_MS)
      .where('e.last_activity_at', '<', inactiveBefore)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    open
      .where('e.lifetime_access', '=', 0)
      .where('e.access_expires_at', '>', now)
      .where((eb) =>
        eb.or([
          eb('e.last_activity_at', 'is', null),
          eb('e.last_activity_at', '<', inactiveBefore),
          ...(expiringBy !== null ? [eb('e.access_expires_at', '<=', expiringBy)] : []),
        ]),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { n: Number(days.n) + Number(dayOf.n) + Number(timed.n) };
}

/**
 * Enrollments with access now and not completed whose learner has been inactive for `inactiveDays`
 * (or never started) or whose access ends within `expiringWithinDays`; longest inactive first.
 */
export async function atRiskLearners(
  scope: SiteScope,
  criteria: { inactiveDays?: number; expiringWithinDays?: number },
  request: PageRequest,
  now: number,
): Promise<{ page: Page<AtRisk>; total: number }> {
  const inactiveBefore = criteria.inactiveDays === undefined ? null : now - criteria.inactiveDays * DAY_MS;
  const expiringBy = criteria.expiringWithinDays === undefined ? null : now + criteria.expiringWithinDays * DAY_MS;
  // Open enrollments (not revoked, not completed) are what the partial index of migration 024 holds, in
  // the page's order, with the access columns: the page reads its first entries and the total counts
  // entries without visiting the table. People and courses are joined for the page only.
  const base = scope.db
    .selectFrom('enrollments as e')
    .where('e.site_id', '=', scope.siteId)
    .where('e.revoked_at', 'is', null)
    .where('e.completed_at', 'is', null)
    .$if(inactiveBefore !== null, (qb) =>
      qb
        .where((eb) => eb.or([eb('e.lifetime_access', '=', 1), eb('e.access_expires_at', 'is', null), eb('e.access_expires_at', '>', now)]))
        .where((eb) =>
          eb.or([
            eb('e.last_activity_at', 'is', null),
            eb('e.last_activity_at', '<', inactiveBefore ?? 0),
            ...(expiringBy !== null ? [eb.and([eb('e.lifetime_access', '=', 0), eb('e.access_expires_at', '<=', expiringBy)])] : []),
          ]),
        ),
    )
    // Expiring alone: access that ends in (now, expiringBy], a range of the partial index on open timed
    // enrollments' expiry (migration 024), however many other enrollments there are.
    .$if(inactiveBefore === null, (qb) =>
      qb
        .where('e.lifetime_access', '=', 0)
        .where('e.access_expires_at', '>', now)
        .where('e.access_expires_at', '<=', expiringBy ?? now),
    );
  const { size, after } = pageQuery(AT_RISK, request);
  // Ordered by last activity, never-active first, then id. The cursor carries a never-active learner's
  // activity as 0 (a time no activity has).
  const [rows, count] = await Promise.all([
    base
      .innerJoin('people as p', 'p.id', 'e.person_id')
      .innerJoin('courses as c', 'c.id', 'e.course_id')
      .$if(after !== null, (qb) =>
        qb.where((eb) =>
          after?.sort === 0
            ? eb.or([eb('e.last_activity_at', 'is not', null), eb('e.id', '>', after.id)])
            : eb.or([
                eb('e.last_activity_at', '>', after?.sort ?? 0),
                eb.and([eb('e.last_activity_at', '=', after?.sort ?? 0), eb('e.id', '>', after?.id ?? '')]),
              ]),
        ),
      )
      .select(['e.id', 'e.person_id', 'p.name', 'e.course_id', 'c.title', 'e.last_activity_at', 'e.access_expires_at', 'e.lifetime_access'])
      .orderBy(sql`e.last_activity_at asc nulls first`)
      .orderBy('e.id')
      .limit(size + 1)
      .execute(),
    inactiveBefore === null
      ? base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
      : countAtRisk(scope, inactiveBefore, expiringBy, now),
  ]);
  const items = rows.map((r): AtRisk => {
    const last = r.last_activity_at === null ? null : Number(r.last_activity_at);
    const expires = r.lifetime_access === 1 || r.access_expires_at === null ? null : Number(r.access_expires_at);
    const reasons: AtRisk['reasons'] = [];
    if (inactiveBefore !== null && (last === null || last < inactiveBefore)) reasons.push('inactive');
    if (expiringBy !== null && expires !== null && expires <= expiringBy) reasons.push('expiring');
    return {
      enrollmentId: r.id,
      studentId: r.person_id,
      studentName: r.name,
      courseId: r.course_id,
      courseTitle: r.title,
      lastActivityAt: last,
      accessExpiresAt: expires,
      reasons,
    };
  });
  return { page: toPage(AT_RISK, items, size, (a) => ({ sort: a.lastActivityAt ?? 0, id: a.enrollmentId })), total: Number(count.n) };
}
