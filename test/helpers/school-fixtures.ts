// Test worlds for the school domain and the member API (CONTRACT 3): sites, people and roles inserted
// directly, the demo seed on top, a second student for isolation checks, and a GraphQL runner.
import { type ExecutionResult, execute, parse, validate } from 'graphql';
import type {
  Insertable,
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { createMemberContext, type MemberContext } from '../../src/member-api/context.js';
import { memberValidationRules } from '../../src/member-api/limits.js';
import { type MemberApiVariant, memberSchema } from '../../src/member-api/schema.js';
import { type DemoSchoolIds, seedDemoSchool } from '../../src/school/seed-demo-school.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { EnrollmentsTable } from '../../src/storage/school-schema.js';
import type { Database } from '../../src/storage/schema.js';
import { freshDatabaseUrl, type TestDialect } from './dialects.js';

/** A fixed "now" (1 March 2026, 12:00 UTC) so dates in assertions are stable. */
export const TEST_NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
export const DAY = 86_400_000;

export interface SchoolStore {
  store: Store;
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** A fresh, migrated database of the dialect; close() drops it. */
export async function openSchoolStore(dialect: TestDialect): Promise<SchoolStore> {
  const { url, cleanup } = await freshDatabaseUrl(dialect);
  const store = openStore(url);
  await migrateToLatest(store);
  return {
    store,
    db: store.db,
    close: async () => {
      await store.close();
      await cleanup();
    },
  };
}

export async function insertSite(
  db: Kysely<Database>,
  site: { id: string; name: string; origin: string; variant: 'A' | 'B' },
  now = TEST_NOW,
): Promise<string> {
  await db
    .insertInto('sites')
    .values({ id: site.id, slug: site.id, name: site.name, origin: site.origin, variant: site.variant, mcp_beta: 1, created_at: now })
    .execute();
  return site.id;
}

export async function insertPerson(
  db: Kysely<Database>,
  person: { id: string; email: string; name: string },
  now = TEST_NOW,
): Promise<string> {
  await db
    .insertInto('people')
    .values({ id: person.id, email: person.email, name: person.name, picture_url: null, password_hash: 'not-a-real-hash', created_at: now })
    .execute();
  return person.id;
}

/** A published course of a site, titled by its id. */
export async function insertCourse(db: Kysely<Database>, siteId: string, id: string, now = TEST_NOW): Promise<string> {
  await db
    .insertInto('courses')
    .values({
      id,
      site_id: siteId,
      slug: id,
      title: id,
      subtitle: null,
      description: '',
      cover_image_url: null,
      price_cents: 0,
      currency: 'EUR',
      published: 1,
      created_at: now,
      archived_at: null,
      updated_at: null,
    })
    .execute();
  return id;
}

/** An enrollment row with access for good, never active, nothing completed; `rest` sets any other column. */
export function enrollmentRow(
  row: Pick<Insertable<EnrollmentsTable>, 'id' | 'site_id' | 'person_id' | 'course_id'> & Partial<Insertable<EnrollmentsTable>>,
): Insertable<EnrollmentsTable> {
  return {
    started_at: TEST_NOW,
    access_expires_at: null,
    lifetime_access: 1,
    completed_at: null,
    last_lecture_id: null,
    last_position_seconds: null,
    last_activity_at: null,
    revoked_at: null,
    ...row,
  };
}

/** Inserts rows in statements of 500 (PostgreSQL takes at most 65,535 parameters in one). */
export async function insertMany(db: Kysely<Database>, table: 'people' | 'site_roles' | 'enrollments', rows: object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 500) as never)
      .execute();
}

/** The id of learner `i` of insertLearners: `per_0000`, `per_0001`, ... */
export const learnerId = (i: number) => `per_${String(i).padStart(4, '0')}`;

/**
 * Enrolls insertLearners' learners numbered `learners` in a course, each as `enr_<tag>_<number>`; `rest`
 * sets any other column of each (`k`: its place among them).
 */
export async function enrollLearners(
  db: Kysely<Database>,
  course: { siteId: string; courseId: string; tag: string },
  learners: readonly number[],
  rest: (i: number, k: number) => Partial<Insertable<EnrollmentsTable>> = () => ({}),
): Promise<void> {
  await insertMany(
    db,
    'enrollments',
    learners.map((i, k) =>
      enrollmentRow({
        id: `enr_${course.tag}_${i}`,
        site_id: course.siteId,
        person_id: learnerId(i),
        course_id: course.courseId,
        ...rest(i, k),
      }),
    ),
  );
}

/**
 * People `Learner 0` to `Learner count-1`, each a student of the site; two at a time share a start (so
 * ties in the students list's order are broken by id), the later numbers the newer students.
 */
export async function insertLearners(db: Kysely<Database>, siteId: string, count: number): Promise<void> {
  const all = Array.from({ length: count }, (_, i) => i);
  await insertMany(
    db,
    'people',
    all.map((i) => ({
      id: learnerId(i),
      email: `${learnerId(i)}@a.test`,
      name: `Learner ${i}`,
      picture_url: null,
      password_hash: 'x',
      created_at: TEST_NOW,
    })),
  );
  await insertMany(
    db,
    'site_roles',
    all.map((i) => ({
      site_id: siteId,
      person_id: learnerId(i),
      role: 'student',
      created_at: TEST_NOW - (count - Math.floor(i / 2)) * 1000,
    })),
  );
}

export async function grantRole(
  db: Kysely<Database>,
  siteId: string,
  personId: string,
  role: 'owner' | 'admin' | 'lecturer' | 'student',
  now = TEST_NOW,
): Promise<void> {
  await db.insertInto('site_roles').values({ site_id: siteId, person_id: personId, role, created_at: now }).execute();
}

export interface DemoWorld extends DemoSchoolIds {
  now: number;
  /** A second student at Demo Academy with rows of their own, which the demo student must never see. */
  otherStudentId: string;
}

export const ACADEMY_ORIGIN = 'http://localhost:3000';
export const STUDIO_ORIGIN = 'http://127.0.0.1:3000';

/** The CONTRACT 3 sites, people and roles, the demo school seed, and a second student with their own data. */
export async function createDemoWorld(db: Kysely<Database>, now = TEST_NOW): Promise<DemoWorld> {
  const academySiteId = await insertSite(db, { id: 'site_academy', name: 'Demo Academy', origin: ACADEMY_ORIGIN, variant: 'A' }, now);
  const studioSiteId = await insertSite(db, { id: 'site_studio', name: 'Demo Studio', origin: STUDIO_ORIGIN, variant: 'B' }, now);
  const ownerId = await insertPerson(db, { id: 'per_owner', email: 'owner@demo.test', name: 'Olivia Owner' }, now);
  const studentId = await insertPerson(db, { id: 'per_student', email: 'student@demo.test', name: 'Sam Student' }, now);
  const lecturerId = await insertPerson(db, { id: 'per_lecturer', email: 'lecturer@demo.test', name: 'Mara Lindqvist' }, now);
  const visitorId = await insertPerson(db, { id: 'per_visitor', email: 'visitor@demo.test', name: 'Victor Visitor' }, now);
  const otherStudentId = await insertPerson(db, { id: 'per_other', email: 'other@demo.test', name: 'Olga Other' }, now);
  await grantRole(db, academySiteId, ownerId, 'owner', now);
  await grantRole(db, studioSiteId, ownerId, 'admin', now);
  await grantRole(db, academySiteId, studentId, 'student', now);
  await grantRole(db, studioSiteId, studentId, 'student', now);
  await grantRole(db, academySiteId, lecturerId, 'lecturer', now);
  await grantRole(db, studioSiteId, visitorId, 'student', now);
  await grantRole(db, academySiteId, otherStudentId, 'student', now);
  const world: DemoWorld = { academySiteId, studioSiteId, ownerId, studentId, lecturerId, visitorId, otherStudentId, now };
  await seedDemoSchool(db, world, now);
  await addOtherStudentRows(db, world);
  return world;
}

async function addOtherStudentRows(db: Kysely<Database>, world: DemoWorld): Promise<void> {
  const siteId = world.academySiteId;
  const personId = world.otherStudentId;
  const course = await db
    .selectFrom('courses')
    .where('site_id', '=', siteId)
    .where('slug', '=', 'git-for-teams')
    .select('id')
    .executeTakeFirstOrThrow();
  const product = await db
    .selectFrom('digital_products')
    .where('site_id', '=', siteId)
    .select('id')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const service = await db
    .selectFrom('consulting_services')
    .where('site_id', '=', siteId)
    .select('id')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const event = await db.selectFrom('events').where('site_id', '=', siteId).select('id').orderBy('id').executeTakeFirstOrThrow();
  const t = world.now - DAY;
  await db
    .insertInto('enrollments')
    .values(enrollmentRow({ id: 'enr_other', site_id: siteId, person_id: personId, course_id: course.id, started_at: t }))
    .execute();
  await db
    .insertInto('digital_product_purchases')
    .values({ id: 'dpp_other', site_id: siteId, person_id: personId, product_id: product.id, purchased_at: t })
    .execute();
  await db
    .insertInto('consulting_purchases')
    .values({ id: 'csp_other', site_id: siteId, person_id: personId, service_id: service.id, purchased_at: t })
    .execute();
  await db
    .insertInto('event_registrations')
    .values({ id: 'reg_other', site_id: siteId, person_id: personId, event_id: event.id, registered_at: t })
    .execute();
  await db
    .insertInto('notifications')
    .values({
      id: 'ntf_other',
      site_id: siteId,
      person_id: personId,
      kind: 'announcement',
      title: 'Only for Olga',
      body: 'Private to the other student.',
      link: null,
      read_at: null,
      created_at: t,
    })
    .execute();
  await db
    .insertInto('notification_subscriptions')
    .values({ site_id: siteId, person_id: personId, kind: 'new_lecture', channel: 'email', enabled: 1, updated_at: t })
    .execute();
}

/** The member context of a person at a site, with both account scopes. */
export function memberContext(db: Kysely<Database>, siteId: string, personId: string, now = TEST_NOW): MemberContext {
  return createMemberContext(db, siteId, personId, ['account:read', 'account:write'], now);
}

/** Parses, validates (standard rules plus the member API limits) and executes, as the HTTP layer will. */
export async function runMember(
  variant: MemberApiVariant,
  context: MemberContext,
  source: string,
  variables?: Record<string, unknown>,
): Promise<ExecutionResult> {
  const schema = memberSchema(variant);
  const document = parse(source);
  const errors = validate(schema, document, memberValidationRules(variables));
  if (errors.length > 0) return { errors };
  return execute({ schema, document, contextValue: context, variableValues: variables ?? null });
}

/** Counts the queries executed through the returned database handle. */
export function countingDatabase(db: Kysely<Database>): { db: Kysely<Database>; count: () => number; reset: () => void } {
  let executed = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => args.node,
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      executed += 1;
      return args.result;
    },
  };
  return {
    db: db.withPlugin(plugin),
    count: () => executed,
    reset: () => {
      executed = 0;
    },
  };
}
