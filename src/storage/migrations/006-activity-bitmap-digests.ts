// A digest beside each activity bitmap (issue 9: the year overview at p99 under 50 ms on PostgreSQL). Past
// periods' bitmaps rarely change, so each node keeps the ones it has read and asks the store only for those
// whose digest differs from its copy: the answer is always the stored truth, and a year's 44 bitmaps
// (550 KB for 100,000 learners) stop crossing the wire on every overview.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('activity_bitmaps')
    .addColumn('digest', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // Existing rows get their digest here (neither dialect has the same hash function in SQL).
  let after = { site_id: '', period: '' };
  for (;;) {
    const rows = (await db
      .selectFrom('activity_bitmaps')
      .select(['site_id', 'period', 'bits'])
      .where((eb) =>
        eb.or([eb('site_id', '>', after.site_id), eb.and([eb('site_id', '=', after.site_id), eb('period', '>', after.period)])]),
      )
      .orderBy('site_id')
      .orderBy('period')
      .limit(500)
      .execute()) as Array<{ site_id: string; period: string; bits: Uint8Array }>;
    for (const row of rows)
      await db
        .updateTable('activity_bitmaps')
        .set({ digest: createHash('sha256').update(row.bits).digest('base64url').slice(0, 22) })
        .where('site_id', '=', row.site_id)
        .where('period', '=', row.period)
        .execute();
    const last = rows.at(-1);
    if (!last) break;
    after = { site_id: last.site_id, period: last.period };
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('activity_bitmaps').dropColumn('digest').execute();
}
