// The counts and figures that triggers keep per student (migrations 031 and 034, PostgreSQL) read one table
// while another changes: a new enrollment is counted for a course when its person holds the student role,
// and a role granted counts the person's enrollments. Two transactions at READ COMMITTED that change the
// same person's rows at once (a member buying a course while an operator grants another, a role granted
// while an enrollment is added) each read without the other's uncommitted rows, and the later commit kept
// a figure or count one change behind for good (031: the enrollment counted by neither; 034: the student's
// figures without the other's change). SERIALIZABLE transactions (the operator API's writes) were already
// refused one of the two, as a conflict to retry.
//
// Such changes now take the person's row lock first (FOR NO KEY UPDATE, which foreign-key checks do not
// wait for), before the row is written: a second transaction changing the same person waits for the first
// to commit, and the triggers' statements that follow, each with a snapshot of its own, then read the
// first one's rows. Only the columns these counts read take the lock: a learner's activity and progress,
// the frequent writes, do not. SQLite needs none of it: its writers take turns, each seeing all before it.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** Locks the people whose counted rows change; a move between two people locks both in one order. */
const LOCK_PEOPLE = `if tg_op = 'INSERT' then
    perform 1 from people where id = new.person_id for no key update;
    return new;
  elsif tg_op = 'DELETE' then
    perform 1 from people where id = old.person_id for no key update;
    return old;
  end if;
  perform 1 from people where id in (old.person_id, new.person_id) order by id for no key update;
  return new;`;

/** What a change of an enrollment must touch for 031's counts or 034's figures to move. */
const ENROLLMENT_COUNTED = `old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id
  or old.course_id is distinct from new.course_id or (old.completed_at is null) <> (new.completed_at is null)
  or (old.revoked_at is null) <> (new.revoked_at is null) or old.lifetime_access is distinct from new.lifetime_access
  or old.access_expires_at is distinct from new.access_expires_at`;

const ROLE_COUNTED = `old.site_id is distinct from new.site_id or old.person_id is distinct from new.person_id
  or old.role is distinct from new.role`;

export async function up(db: AnyDb): Promise<void> {
  if (isSqlite(db)) return;
  await sql
    .raw(`create function student_counts_person_locked() returns trigger language plpgsql as $$ begin ${LOCK_PEOPLE} end $$`)
    .execute(db);
  for (const [table, counted] of [
    ['enrollments', ENROLLMENT_COUNTED],
    ['site_roles', ROLE_COUNTED],
  ] as const) {
    await sql
      .raw(`create trigger ${table}_person_locked before insert or delete on ${table} for each row
        execute function student_counts_person_locked()`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_person_locked_update before update on ${table} for each row when (${counted})
        execute function student_counts_person_locked()`)
      .execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) return;
  for (const table of ['enrollments', 'site_roles'])
    for (const trigger of [`${table}_person_locked`, `${table}_person_locked_update`])
      await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
  await sql`drop function if exists student_counts_person_locked()`.execute(db);
}
