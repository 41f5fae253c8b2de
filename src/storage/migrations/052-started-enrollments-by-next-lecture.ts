// A curriculum change through the repository moves only the next lectures it changes
// (src/school/curriculum-stamp.ts): a deleted lecture's learners stopped there, an added lecture's learners
// stopped after it or with none left. Found through the course's enrollments, that read every enrollment of
// the course, one table row each: 96 ms to delete a lecture of a course of 100,000 learners on SQLite, whose
// one writer waits meanwhile (bench/RESULTS.md, thirty-ninth session). This index holds the started
// enrollments (the only ones with a next lecture, or with none left) by course and next lecture, so each
// change reads the enrollments it moves. The statements name `lectures_done > 0`, which is how both
// planners know a partial index covers them.
import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export const INDEX = 'enrollments_started_by_next_lecture';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex(INDEX)
    .ifNotExists()
    .on('enrollments')
    .columns(['site_id', 'course_id', 'next_lecture_id'])
    .where(sql.ref('lectures_done'), '>', 0)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex(INDEX).ifExists().execute();
}
