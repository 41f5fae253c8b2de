// The students list filtered by inactivity (GET /students?inactiveDays=) asked, per student, whether any of
// their enrollments had activity since a moment, and counted its total the same way: 9-11 req/s at p99
// 2.4-5 s on SQLite at 100,000 students and a million enrollments (bench/RESULTS.md, fifteenth session).
// Each student's latest activity at the site (-1 for never) is now kept in student_activity by triggers,
// one row per student: a student is asked by key, and the students inactive or active since a moment are
// a range of the (site_id, last_activity_at) index each, so the list can count the inactive up to a bound
// and start from them when they are few, and count the active to subtract from the students otherwise.
//
// An enrollment's later activity raises its student's by one update by key to the larger value: on
// PostgreSQL concurrent raises of one student queue on the row and each takes the larger of what the one
// before it left and its own, so the frequent activity updates stay exact. Lowering (an enrollment
// deleted, moved to another person or site, or its activity set back) recomputes from the person's few
// enrollments, after locking the row on PostgreSQL, so a raise that commits meanwhile is seen (a
// statement's snapshot is taken before it waits for a lock). Only students (holders of the student role)
// have a row: the roles' triggers add and remove it. Migration 030's index, read only by this filter, is
// dropped.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The latest activity of a student who never had any: before every time, so "inactive since" is one range. */
const NEVER = -1;

const TRIGGERS = [
  ['enrollments', 'enrollments_latest_activity_insert'],
  ['enrollments', 'enrollments_latest_activity_delete'],
  ['enrollments', 'enrollments_latest_activity_raise'],
  ['enrollments', 'enrollments_latest_activity_lower'],
  ['enrollments', 'enrollments_latest_activity_update'],
  ['site_roles', 'site_roles_latest_activity_insert'],
  ['site_roles', 'site_roles_latest_activity_delete'],
  ['site_roles', 'site_roles_latest_activity_update'],
] as const;

/** A student's latest activity from their enrollments at the site (`k` the pair), -1 when they never had any. */
const LATEST = `coalesce((select max(e.last_activity_at) from enrollments e
  where e.site_id = k.site_id and e.person_id = k.person_id), ${NEVER})`;

/**
 * Raises the latest activity of the student of the enrollment `row` (new) to its activity, where that is
 * later: one update by key. It writes the row even when its value stays: on PostgreSQL that waits for a
 * concurrent lowering's lock and then takes the larger of its result and this activity, where a condition
 * on the value, read from the snapshot before the wait, could skip the row and leave the lowering's result.
 * Someone without the student role has no row, and nothing changes.
 */
function raise(db: AnyDb, row: string): string {
  const later = isSqlite(db) ? 'max' : 'greatest';
  return `update student_activity set last_activity_at = ${later}(last_activity_at, ${row}.last_activity_at)
      where site_id = ${row}.site_id and person_id = ${row}.person_id;`;
}

/**
 * The latest activity of the students among `pairs` (site_id, person_id) recomputed in place. On
 * PostgreSQL the rows are locked first, so that the recomputing statement, with a snapshot taken after the
 * lock, sees the enrollments of a concurrent raise that held it; a raise that comes after waits for this
 * one and keeps the later value. Never an insert, which during a site's or person's deletion would bring
 * back a row the cascade removed.
 */
function lower(db: AnyDb, pairs: string): string {
  const lock = isSqlite(db) ? '' : `perform 1 from student_activity where (site_id, person_id) in (${pairs}) for update;`;
  return `${lock}
    update student_activity set last_activity_at = ${LATEST.replaceAll('k.', 'student_activity.')}
      where (site_id, person_id) in (${pairs});`;
}

/** A row for each new student among `pairs`, with their latest activity from their enrollments. */
function addStudents(pairs: string): string {
  return `insert into student_activity (site_id, person_id, last_activity_at)
      select k.site_id, k.person_id, ${LATEST} from (${pairs}) k
      order by k.site_id, k.person_id
      on conflict (site_id, person_id) do update set last_activity_at = excluded.last_activity_at;`;
}

/** Whether an update moved an enrollment's activity away from its old person: the old one's latest may fall. */
const LOWERS = `old.last_activity_at is not null and (old.site_id <> new.site_id or old.person_id <> new.person_id
  or new.last_activity_at is null or new.last_activity_at < old.last_activity_at)`;

/** Whether an update gave its (new) person activity they may not have had. */
const RAISES = `new.last_activity_at is not null and (old.site_id <> new.site_id or old.person_id <> new.person_id
  or old.last_activity_at is null or new.last_activity_at > old.last_activity_at)`;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('student_activity')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('last_activity_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('student_activity_pk', ['site_id', 'person_id'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  await db.schema.createIndex('student_activity_latest').on('student_activity').columns(['site_id', 'last_activity_at']).execute();
  const removeStudent = (row: 'old' | 'removed') =>
    row === 'old'
      ? 'delete from student_activity where site_id = old.site_id and person_id = old.person_id;'
      : `delete from student_activity a using removed t where t.role = 'student' and a.site_id = t.site_id and a.person_id = t.person_id;`;
  if (isSqlite(db)) {
    const pair = (row: 'new' | 'old') => `select ${row}.site_id, ${row}.person_id`;
    for (const statement of [
      `create trigger enrollments_latest_activity_insert after insert on enrollments when new.last_activity_at is not null
        begin ${raise(db, 'new')} end`,
      `create trigger enrollments_latest_activity_delete after delete on enrollments when old.last_activity_at is not null
        begin ${lower(db, pair('old'))} end`,
      `create trigger enrollments_latest_activity_raise after update of site_id, person_id, last_activity_at on enrollments
        when ${RAISES} begin ${raise(db, 'new')} end`,
      `create trigger enrollments_latest_activity_lower after update of site_id, person_id, last_activity_at on enrollments
        when ${LOWERS} begin ${lower(db, pair('old'))} end`,
      `create trigger site_roles_latest_activity_insert after insert on site_roles when new.role = 'student'
        begin ${addStudents(pair('new'))} end`,
      `create trigger site_roles_latest_activity_delete after delete on site_roles when old.role = 'student'
        begin ${removeStudent('old')} end`,
      `create trigger site_roles_latest_activity_update after update of site_id, person_id, role on site_roles
        when old.site_id is not new.site_id or old.person_id is not new.person_id or old.role is not new.role
        begin
          delete from student_activity where old.role = 'student' and site_id = old.site_id and person_id = old.person_id;
          ${addStudents(`${pair('new')} where new.role = 'student'`)}
        end`,
    ])
      await sql.raw(statement).execute(db);
  } else {
    // Inserts and deletes once per statement over the rows they changed (transition tables); updates, the
    // frequent activity among them, by a row trigger that fires only when a column it reads changes.
    const functions = {
      student_activity_by_enrollment: `if tg_op = 'DELETE' then
          ${lower(db, 'select site_id, person_id from removed where last_activity_at is not null')}
        else
          update student_activity s set last_activity_at = greatest(s.last_activity_at, a.at)
            from (select site_id, person_id, max(last_activity_at) as at from added where last_activity_at is not null
              group by site_id, person_id) a
            where s.site_id = a.site_id and s.person_id = a.person_id;
        end if; return null;`,
      student_activity_enrollment_changed: `if ${LOWERS} then ${lower(db, 'select old.site_id, old.person_id')} end if;
        if ${RAISES} then ${raise(db, 'new')} end if; return null;`,
      student_activity_by_role: `if tg_op = 'DELETE' then ${removeStudent('removed')}
        else ${addStudents("select distinct site_id, person_id from added where role = 'student'")} end if; return null;`,
      student_activity_role_changed: `if old.role = 'student' then ${removeStudent('old')} end if;
        ${addStudents("select new.site_id, new.person_id where new.role = 'student'")} return null;`,
    };
    for (const [name, body] of Object.entries(functions))
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} end $$`).execute(db);
    for (const [table, fn] of [
      ['enrollments', 'student_activity_by_enrollment'],
      ['site_roles', 'student_activity_by_role'],
    ] as const) {
      const prefix = table === 'enrollments' ? 'enrollments_latest_activity' : 'site_roles_latest_activity';
      await sql
        .raw(
          `create trigger ${prefix}_insert after insert on ${table} referencing new table as added for each statement execute function ${fn}()`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${prefix}_delete after delete on ${table} referencing old table as removed for each statement execute function ${fn}()`,
        )
        .execute(db);
    }
    await sql
      .raw(`create trigger enrollments_latest_activity_update after update of site_id, person_id, last_activity_at on enrollments for each row
        when ((${LOWERS}) or (${RAISES})) execute function student_activity_enrollment_changed()`)
      .execute(db);
    await sql`create trigger site_roles_latest_activity_update after update of site_id, person_id, role on site_roles for each row
      when (old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id or old.role is distinct from new.role)
      execute function student_activity_role_changed()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql.raw(addStudents("select site_id, person_id from site_roles where role = 'student'")).execute(db);
  // Migration 030's index of the enrollments by activity and person had this filter as its only reader;
  // each activity update paid for keeping it.
  await db.schema.dropIndex('enrollments_site_activity_person').ifExists().execute();
  // The new table's statistics now, not at autovacuum's next round: without them PostgreSQL takes it for a
  // row or two and plans the students list's inactivity filter as if it cost nothing.
  if (!isSqlite(db)) await sql`analyze student_activity`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const [table, trigger] of TRIGGERS)
    await sql.raw(isSqlite(db) ? `drop trigger if exists ${trigger}` : `drop trigger if exists ${trigger} on ${table}`).execute(db);
  if (!isSqlite(db))
    for (const fn of [
      'student_activity_by_enrollment',
      'student_activity_enrollment_changed',
      'student_activity_by_role',
      'student_activity_role_changed',
    ])
      await sql.raw(`drop function if exists ${fn}()`).execute(db);
  await db.schema.dropTable('student_activity').execute();
  await db.schema
    .createIndex('enrollments_site_activity_person')
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'last_activity_at', 'person_id'])
    .where(sql.ref('last_activity_at'), 'is not', null)
    .execute();
}
