// The operator API at school scale (issue 9): Demo Academy grown to 100,000 students, 1,000,000
// enrollments and 1,000,000 paid orders (with their lines, payments and analytics roll-ups) and 1,000,000
// audit events, then `GET /students?limit=100`, `GET /analytics/overview` for a year and `GET /audit_events`
// (unfiltered, by action prefix, by actor, by app) under load, p99 against 50 ms; last, lectures deleted,
// added and moved one request at a time (curriculumChanges).
// `npm run bench:operator` runs SQLite then PostgreSQL (a fresh database); OPERATOR_STUDENTS scales it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { writeActivity } from '../src/school/learner-activity.js';
import { openStore } from '../src/storage/connect.js';
import type { Database } from '../src/storage/schema.js';
import { person } from '../test/helpers/person.js';
import { postgresBenchDatabase, startAppServer, tokensFromFlow } from './harness.js';

const STUDENTS = Number(process.env.OPERATOR_STUDENTS ?? 100_000);
const PER_STUDENT = 10; // enrollments and orders per student
const LECTURES = 20; // per course
const COURSES = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DAY = 86_400_000;

/** BENCH_PROFILE=<dir> writes a V8 CPU profile of the server; OPERATOR_DIALECTS=postgres measures one store. */
const PROFILE_DIR = process.env.BENCH_PROFILE;
const MEASURED = (process.env.OPERATOR_DIALECTS ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
/** OPERATOR_ONLY=audit measures only the requests whose path contains it (or one of several, comma-separated). */
const ONLY = (process.env.OPERATOR_ONLY ?? '').split(',');

/** PostgreSQL is measured as it is deployed, with Redis (BENCH_REDIS_URL= to measure it without). */
const REDIS_FOR_POSTGRES = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

/** Grows the Academy with set-based statements, in chunks that stay under the store's query timeout. */
async function grow(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const site = await db.selectFrom('sites').select('id').where('slug', '=', 'demo-academy').executeTakeFirstOrThrow();
  const s = site.id;
  const now = Date.now();
  const start = Math.floor(now / DAY) * DAY - 365 * DAY;
  const range = (from: number, to: number) =>
    dialect === 'postgres'
      ? sql`select g::bigint as n from generate_series(${sql.lit(from)}, ${sql.lit(to)}) g`
      : sql`with recursive r(n) as (select ${sql.lit(from)} union all select n + 1 from r where n < ${sql.lit(to)}) select n from r`;
  const chunks = async (count: number, size: number, insert: (rows: ReturnType<typeof range>) => Promise<unknown>) => {
    for (let from = 1; from <= count; from += size) await insert(range(from, Math.min(count, from + size - 1)));
  };
  const lit = sql.lit;
  // Analytics days are UTC days here, so the bench can name them in SQL.
  await db.updateTable('site_settings').set({ time_zone: 'UTC' }).where('site_id', '=', s).execute();
  await chunks(COURSES, COURSES, (rows) =>
    sql`insert into courses (id, site_id, slug, title, subtitle, description, cover_image_url, price_cents, currency, published, created_at, archived_at, updated_at)
      select 'crs_bench_' || n, ${s}, 'bench-course-' || n, 'Bench course ' || n, null, '', null, 4900, 'EUR', 1, ${lit(start)}, null, null from (${rows}) t`.execute(
      db,
    ),
  );
  await chunks(STUDENTS, 50_000, (rows) =>
    sql`insert into people (id, email, name, picture_url, password_hash, created_at)
      select 'per_bench_' || n, 'bench' || n || '@scale.test', 'Bench Learner ' || n, null, 'none', ${lit(start)} + n from (${rows}) t`.execute(
      db,
    ),
  );
  // Smaller chunks here: each row also bumps the role count (a trigger), and on PostgreSQL a statement that
  // bumps one row thousands of times slows with each bump.
  await chunks(STUDENTS, 5_000, (rows) =>
    sql`insert into site_roles (site_id, person_id, role, created_at) select ${s}, 'per_bench_' || n, 'student', ${lit(start)} + n from (${rows}) t`.execute(
      db,
    ),
  );
  const total = STUDENTS * PER_STUDENT;
  // Enrollment and order n belong to student (n % STUDENTS) + 1 and course (n / STUDENTS) + 1: distinct pairs.
  const student = sql`'per_bench_' || (n % ${lit(STUDENTS)} + 1)`;
  const course = sql`'crs_bench_' || ((n - 1) / ${lit(STUDENTS)} + 1)`;
  const at = sql`${lit(start)} + (n % 365) * ${lit(DAY)} + (n % 1000) * 60000`;
  await chunks(total, 100_000, (rows) =>
    sql`insert into enrollments (id, site_id, person_id, course_id, started_at, access_expires_at, lifetime_access, completed_at, last_lecture_id, last_position_seconds, last_activity_at, revoked_at)
      select 'enr_bench_' || n, ${s}, ${student}, ${course}, ${at}, null, 1, case when n % 7 = 0 then ${at} + ${lit(DAY)} else null end, null, null,
        case when n % 3 = 0 then ${at} + ${lit(DAY)} else null end, null from (${rows}) t`.execute(db),
  );
  await chunks(total, 100_000, (rows) =>
    sql`insert into orders (id, site_id, number, person_id, status, currency, subtotal_cents, discount_cents, total_cents, refunded_cents, coupon_code, created_at, paid_at)
      select 'ord_bench_' || n, ${s}, 100000 + n, ${student}, 'paid', 'EUR', 4900, 0, 4900, 0, null, ${at}, ${at} from (${rows}) t`.execute(
      db,
    ),
  );
  await chunks(total, 100_000, (rows) =>
    sql`insert into order_lines (id, site_id, order_id, product_type, product_id, title, quantity, unit_price_cents, amount_cents)
      select 'ord_bench_' || n || '-1', ${s}, 'ord_bench_' || n, 'course', ${course}, 'Bench course', 1, 4900, 4900 from (${rows}) t`.execute(
      db,
    ),
  );
  await chunks(total, 100_000, (rows) =>
    sql`insert into payments (id, site_id, order_id, amount_cents, at, method) select 'pay_bench_' || n, ${s}, 'ord_bench_' || n, 4900, ${at}, 'card' from (${rows}) t`.execute(
      db,
    ),
  );
  // Each course: two sections of ten lectures. One enrollment in ten has completed its course's first
  // lectures in order (1 to 20 of them): about 1,050,000 lecture completions, 105,000 in each of the ten
  // courses that have enrollments, for course analytics.
  await chunks(COURSES, COURSES, (rows) =>
    sql`insert into course_sections (id, site_id, course_id, position, title)
      select 'sec_bench_' || t.n || '_' || s.n, ${s}, 'crs_bench_' || t.n, s.n, 'Section ' || s.n from (${rows}) t cross join (${range(1, 2)}) s`.execute(
      db,
    ),
  );
  await chunks(COURSES, COURSES, (rows) =>
    sql`insert into lectures (id, site_id, course_id, section_id, position, title, duration_seconds)
      select 'lec_bench_' || t.n || '_' || l.n, ${s}, 'crs_bench_' || t.n, 'sec_bench_' || t.n || '_' || ((l.n - 1) / 10 + 1),
        (l.n - 1) % 10 + 1, 'Lecture ' || l.n, 600 from (${rows}) t cross join (${range(1, LECTURES)}) l`.execute(db),
  );
  await chunks(total, 100_000, (rows) =>
    sql`insert into lecture_progress (site_id, enrollment_id, lecture_id, completed_at)
      select ${s}, 'enr_bench_' || t.n, 'lec_bench_' || ((t.n - 1) / ${lit(STUDENTS)} + 1) || '_' || l.n, ${lit(start)} + (t.n % 365) * ${lit(DAY)} + l.n * 60000
      from (${rows}) t join (${range(1, LECTURES)}) l on l.n <= (t.n / 10) % ${lit(LECTURES)} + 1 where t.n % 10 = 0`.execute(db),
  );
  // The roll-ups of that history, per day: what placeOrder and the enrollment writes would have booked.
  const days = Array.from({ length: 365 }, (_, d) => ({ d, day: new Date(start + d * DAY).toISOString().slice(0, 10) }));
  const perDay = total / 365;
  const rollups = days.flatMap(({ d, day }) => {
    const count = Math.floor(perDay) + (d < total % 365 ? 1 : 0);
    // Order and enrollment n (n % 365 = d) belong to course (n - 1) / STUDENTS + 1: each course's share of the day.
    const perCourse = Array.from({ length: Math.ceil(total / STUDENTS) }, (_, k) => {
      const [a, b] = [k * STUDENTS + 1, Math.min(total, (k + 1) * STUDENTS)];
      const inCourse = Math.floor((b - d) / 365) - Math.floor((a - 1 - d) / 365);
      return [
        { site_id: s, metric: 'revenue', dim: `product:course:crs_bench_${k + 1}`, day, value: inCourse * 4900 },
        { site_id: s, metric: 'orders', dim: `product:course:crs_bench_${k + 1}`, day, value: inCourse },
        { site_id: s, metric: 'new_enrollments', dim: `course:crs_bench_${k + 1}`, day, value: inCourse },
      ];
    });
    return [
      { site_id: s, metric: 'revenue', dim: '', day, value: count * 4900 },
      { site_id: s, metric: 'orders', dim: '', day, value: count },
      { site_id: s, metric: 'new_enrollments', dim: '', day, value: count },
      ...perCourse.flat(),
    ];
  });
  for (let i = 0; i < rollups.length; i += 300)
    await db
      .insertInto('daily_rollups')
      .values(rollups.slice(i, i + 300))
      .onConflict((oc) => oc.doNothing())
      .execute();
  // Activity: about a third of the enrollments' learners active on a day each (~333,000 learner-days),
  // written as the learner numbers and bitmaps rebuildRollups writes.
  const perDayLearners = Math.ceil(total / 3 / 365);
  const active = new Map<string, Set<string>>();
  for (const { d, day } of days) {
    const persons = new Set<string>();
    for (let n = 1; n <= perDayLearners; n++) persons.add(`per_bench_${((d + 365 * n) % STUDENTS) + 1}`);
    active.set(day, persons);
  }
  await writeActivity(db, s, active);
  await growAuditLog(db, s, chunks);
}

const AUDIT_EVENTS = Number(process.env.OPERATOR_AUDIT_EVENTS ?? 1_000_000);
/** The actor and app whose events the benchmark lists: a person with a hundred events, an app with a thousand. */
const AUDIT_ACTOR = 'per_bench_42';
const AUDIT_APP = 'bench-rare-app';

/**
 * A million audit events over the last 58 days (younger than the routine events' retention, so the
 * janitor leaves them): nine in ten are refresh rotations, spread over 10,000 people; one in a thousand
 * is by one app; one in ten thousand is an operator write.
 */
async function growAuditLog(
  db: Kysely<Database>,
  s: string,
  chunks: (count: number, size: number, insert: (rows: RawBuilder<unknown>) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const lit = sql.lit;
  const now = Date.now();
  await chunks(AUDIT_EVENTS, 50_000, (rows) =>
    sql`insert into audit_events (site_id, at, kind, person_id, client_id, detail, target, request_id)
      select ${s}, ${lit(now)} - (${lit(AUDIT_EVENTS)} - n) * 5000,
        case when n % 10000 = 5 then 'operator.update_course' when n % 10 <> 0 then 'token.refreshed'
          when n % 30 = 0 then 'token.issued' when n % 30 = 10 then 'sign_in.succeeded' else 'consent.granted' end,
        'per_bench_' || (n % 10000 + 1),
        case when n % 1000 = 7 then ${AUDIT_APP} else 'demo-vendor' end,
        '{}', null, null from (${rows}) t`.execute(db),
  );
}

async function measure(origin: string, token: string, path: string): Promise<autocannon.Result> {
  return autocannon({
    url: `${origin}${path}`,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    duration: SECONDS,
  });
}

/** What the table reads of a measurement (an autocannon run, or requests timed one by one). */
interface Measured {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<Array<[string, Measured]>> {
  let databaseUrl: string;
  let drop = async () => {};
  // OPERATOR_KEEP_DATABASE=1 leaves the grown database (1.5 GB as a SQLite file) for EXPLAIN and profiling.
  // Its keys are sealed with a secret printed beside it: BENCH_DATABASE_URL and BENCH_SECRET serve it again
  // (bench/app-server.ts).
  const secret = randomBytes(32).toString('base64url');
  const keep = process.env.OPERATOR_KEEP_DATABASE ? () => console.log(`kept ${databaseUrl} BENCH_SECRET=${secret}`) : undefined;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'schoolgate-operator-'));
    databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
    drop = async () => (keep ? keep() : rmSync(dir, { recursive: true, force: true }));
  } else {
    const database = await postgresBenchDatabase('schoolgate_operator_bench');
    databaseUrl = database.url;
    drop = async () => (keep ? keep() : database.drop());
  }
  const { child, origin } = await startAppServer(
    { BENCH_DATABASE_URL: databaseUrl, BENCH_REDIS_URL: dialect === 'postgres' ? REDIS_FOR_POSTGRES : '', BENCH_SECRET: secret },
    PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  );
  try {
    // Growing and vacuuming run statements longer than a serving store's 5 s limit.
    const store = openStore(databaseUrl, { poolSize: 2, queryTimeoutMs: 600_000 });
    const seeded = performance.now();
    await grow(store.db, dialect);
    // As a deployment's tables are once autovacuum has been by: otherwise it starts on the grown tables
    // while the requests are measured, and the visibility map that index-only scans need is empty.
    // A checkpoint then writes the grown tables out before the measuring rather than during it.
    if (dialect === 'postgres') {
      await sql`vacuum analyze`.execute(store.db);
      await sql`checkpoint`.execute(store.db);
    }
    await store.close();
    console.log(
      `${dialect}: grew to ${STUDENTS.toLocaleString('en')} students, ${(STUDENTS * PER_STUDENT).toLocaleString('en')} enrollments and orders, ${AUDIT_EVENTS.toLocaleString('en')} audit events in ${((performance.now() - seeded) / 1000).toFixed(0)} s`,
    );
    const token = (
      await tokensFromFlow(origin, {
        clientId: 'demo-vendor',
        redirectUri: 'http://127.0.0.1:61000/callback',
        scope: 'students:read analytics:read school:read orders:read courses:read',
        who: person('owner'),
      })
    ).access_token;
    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 364 * DAY).toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10);
    const results: Array<[string, Measured]> = [];
    const paths = [
      '/api/admin/v1/students?limit=100',
      // The students list's filters (CONTRACT 6): a name, a course, a state, inactivity.
      '/api/admin/v1/students?q=bench4217%40&limit=100',
      // Common texts: 11,112 names among the oldest students, every address, and two letters.
      '/api/admin/v1/students?q=learner%201&limit=100',
      '/api/admin/v1/students?q=scale.test&limit=100',
      '/api/admin/v1/students?q=ar&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&limit=100',
      '/api/admin/v1/students?state=expired&limit=100',
      // A course nobody is enrolled in, a state no enrollment is in, and a common course and state.
      '/api/admin/v1/students?courseId=crs_bench_15&limit=100',
      '/api/admin/v1/students?state=revoked&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&state=completed&limit=100',
      '/api/admin/v1/students?state=active&limit=100',
      '/api/admin/v1/students?state=completed&limit=100',
      '/api/admin/v1/students?inactiveDays=30&limit=100',
      // Inactive for a year: few students; a common course with a time-bound state.
      '/api/admin/v1/students?inactiveDays=365&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&state=active&limit=100',
      // Inactivity with a course, and with a state: those enrolled less the active among them.
      '/api/admin/v1/students?courseId=crs_bench_1&inactiveDays=30&limit=100',
      '/api/admin/v1/students?state=completed&inactiveDays=30&limit=100',
      '/api/admin/v1/students?state=active&inactiveDays=30&limit=100',
      // Inactivity with a state whose count depends on the moment, and with a course and each kind of state.
      '/api/admin/v1/students?state=expired&inactiveDays=30&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&state=completed&inactiveDays=30&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&state=active&inactiveDays=30&limit=100',
      '/api/admin/v1/students?courseId=crs_bench_1&state=expired&inactiveDays=30&limit=100',
      // A common course and a state none of its enrollments is in.
      '/api/admin/v1/students?courseId=crs_bench_1&state=revoked&limit=100',
      `/api/admin/v1/analytics/overview?from=${yearAgo}&to=${today}`,
      '/api/admin/v1/orders?limit=100',
      '/api/admin/v1/orders?productId=crs_bench_1&limit=100',
      // Filtered lists: each page answers with the filter's exact total.
      `/api/admin/v1/orders?from=${yearAgo}&to=${today}&limit=100`,
      `/api/admin/v1/orders?status=paid&from=${monthAgo}&limit=100`,
      '/api/admin/v1/orders?productId=crs_bench_1&status=paid&limit=100',
      `/api/admin/v1/orders?studentId=${AUDIT_ACTOR}&limit=100`,
      `/api/admin/v1/orders/summary?from=${monthAgo}&to=${today}`,
      `/api/admin/v1/orders/summary?from=${yearAgo}&to=${today}`,
      '/api/admin/v1/courses/crs_bench_1/enrollments?limit=100',
      '/api/admin/v1/courses?limit=100',
      '/api/admin/v1/analytics/courses/crs_bench_1',
      '/api/admin/v1/analytics/at_risk_learners?inactiveDays=30&limit=100',
      '/api/admin/v1/analytics/at_risk_learners?expiringWithinDays=30&limit=100',
      `/api/admin/v1/analytics/timeseries?metric=revenue&from=${yearAgo}&to=${today}&groupBy=product`,
      `/api/admin/v1/analytics/timeseries?metric=active_learners&from=${yearAgo}&to=${today}&interval=week`,
      '/api/admin/v1/audit_events?limit=100',
      '/api/admin/v1/audit_events?action=operator.&limit=100',
      `/api/admin/v1/audit_events?actorId=${AUDIT_ACTOR}&limit=100`,
      `/api/admin/v1/audit_events?clientId=${AUDIT_APP}&limit=100`,
      // The app that wrote nearly every event: its total is most of the log.
      '/api/admin/v1/audit_events?clientId=demo-vendor&limit=100',
    ];
    for (const path of paths.filter((p) => ONLY.some((part) => p.includes(part)))) {
      const check = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (check.status !== 200) throw new Error(`${path} answered ${check.status}: ${await check.text()}`);
      results.push([path, await measure(origin, token, path)]);
    }
    if (ONLY.some((part) => [DELETED_LECTURE_PATH, ADDED_LECTURE_PATH, REORDER_PATH].some((path) => path.includes(part))))
      results.push(...(await curriculumChanges(origin)));
    return results;
  } finally {
    child.send('exit');
    await new Promise((resolve) => child.once('exit', resolve));
    await drop();
  }
}

/** The requests curriculumChanges times; OPERATOR_ONLY selects them by a part of these, as it selects the paths. */
const DELETED_LECTURE_PATH = 'DELETE /api/admin/v1/lectures/{id}';
const ADDED_LECTURE_PATH = 'POST /api/admin/v1/sections/{id}/lectures';
const REORDER_PATH = 'POST /api/admin/v1/courses/{id}/curriculum/reorder';

/**
 * Changing curricula, one request at a time, as an operator does it. Deleting a lecture: the database looks
 * for the enrollments that name it as their last watched and the comments on it (the references migration
 * 051 indexes) and deletes learners' progress on it. Adding one at the end of a course. Each change brings
 * the course's next lectures up to date (curriculum-stamp.ts). The courses are stamped first, as every change
 * through the API leaves them (course analytics is read once for each, untimed). Then the last lecture of
 * the ten courses nobody is enrolled in is deleted, then of the ten with 100,000 enrollments each, then a
 * lecture is added at the end of each, then each of the ten's last lecture is moved to its front and back to its
 * end; each request timed, and each row shows the rate over its ten and the slowest as its p99.
 */
async function curriculumChanges(origin: string): Promise<Array<[string, Measured]>> {
  const { access_token: token } = await tokensFromFlow(origin, {
    clientId: 'demo-vendor',
    redirectUri: 'http://127.0.0.1:61000/callback',
    scope: 'curriculum:read curriculum:write analytics:read',
    who: person('owner'),
  });
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${origin}/api/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  /** `change` times its own request (it may read first, untimed) and answers the milliseconds it took. */
  const timedOnly = async (courses: number[], change: (course: number) => Promise<number>): Promise<Measured> => {
    const times: number[] = [];
    for (const course of courses) times.push(await change(course));
    const seconds = times.reduce((a, b) => a + b, 0) / 1000;
    return { requests: { average: times.length / seconds }, latency: { p99: Math.round(Math.max(...times)) }, non2xx: 0 };
  };
  const timed = (courses: number[], change: (course: number) => Promise<unknown>) =>
    timedOnly(courses, async (course) => {
      const started = performance.now();
      await change(course);
      return performance.now() - started;
    });
  const courses = (from: number) => Array.from({ length: 10 }, (_, i) => from + i);
  for (const course of [...courses(1), ...courses(11)]) await call('GET', `/analytics/courses/crs_bench_${course}`);
  const deleting = (course: number) => call('DELETE', `/lectures/lec_bench_${course}_${LECTURES}`);
  const adding = (course: number) => call('POST', `/sections/sec_bench_${course}_2/lectures`, { title: 'Added', durationSeconds: 600 });
  const rows: Array<[string, Measured]> = [];
  if (ONLY.some((part) => DELETED_LECTURE_PATH.includes(part))) {
    rows.push([`${DELETED_LECTURE_PATH}, a course nobody is enrolled in (one at a time)`, await timed(courses(11), deleting)]);
    rows.push([`${DELETED_LECTURE_PATH}, a course with 100,000 enrollments (one at a time)`, await timed(courses(1), deleting)]);
  }
  if (ONLY.some((part) => ADDED_LECTURE_PATH.includes(part))) {
    rows.push([`${ADDED_LECTURE_PATH}, at the end of a course nobody is enrolled in (one at a time)`, await timed(courses(11), adding)]);
    rows.push([`${ADDED_LECTURE_PATH}, at the end of a course with 100,000 enrollments (one at a time)`, await timed(courses(1), adding)]);
  }
  if (ONLY.some((part) => REORDER_PATH.includes(part))) {
    // The course's order as stored (untimed), then one lecture moved: the learners stopped at a lecture it passes
    // who have not completed it move. Its last lecture to the front moves most of its 10,000 started learners,
    // and moving it back (the first lecture now) to the end moves them back.
    type Outline = { curriculum: { sections: Array<{ id: string; lectures: Array<{ id: string }> }> } };
    const moving = (toFront: boolean) => async (course: number) => {
      const { curriculum } = (await call('GET', `/courses/crs_bench_${course}/curriculum`)) as Outline;
      const sections = curriculum.sections.map((section) => ({ id: section.id, lectureIds: section.lectures.map((l) => l.id) }));
      const all = sections.flatMap((section) => section.lectureIds);
      const moved = (toFront ? all.at(-1) : all[0]) as string;
      const last = sections.length - 1;
      const order = sections.map((section, k) => {
        const rest = section.lectureIds.filter((id) => id !== moved);
        return { id: section.id, lectureIds: toFront && k === 0 ? [moved, ...rest] : !toFront && k === last ? [...rest, moved] : rest };
      });
      const started = performance.now();
      await call('POST', `/courses/crs_bench_${course}/curriculum/reorder`, { sections: order });
      return performance.now() - started;
    };
    rows.push([
      `${REORDER_PATH}, its last lecture moved to the front, in a course with 100,000 enrollments`,
      await timedOnly(courses(1), moving(true)),
    ]);
    rows.push([`${REORDER_PATH}, that lecture moved back to the end`, await timedOnly(courses(1), moving(false))]);
  }
  return rows;
}

/** A path as the table shows it: the dates by what they stand for. */
function label(path: string): string {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
  return path.replace(day(364), '<a year ago>').replace(day(30), '<a month ago>').replace(day(0), '<today>');
}

const rows: string[] = [];
for (const dialect of MEASURED) {
  for (const [path, r] of await run(dialect)) {
    rows.push(
      `| ${dialect === 'postgres' && REDIS_FOR_POSTGRES ? 'postgres + redis' : dialect} | \`${label(path)}\` | ${r.requests.average.toFixed(0)} | ${r.latency.p99} ms | ${r.latency.p99 < 50 ? 'meets' : 'ABOVE'} (50 ms) | ${r.non2xx} |`,
    );
  }
}
console.log('\n| store | request | req/s | p99 | bar | non-2xx |\n| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
