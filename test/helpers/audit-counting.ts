// The audit log's totals the slow way, from the events themselves: what the kept counts must agree with.
import type { Kysely } from 'kysely';
import type { AuditFilter } from '../../src/audit/audit-log.js';
import type { Database } from '../../src/storage/schema.js';

export async function countedAuditEvents(db: Kysely<Database>, siteId: string, filter: AuditFilter): Promise<number> {
  const row = await db
    .selectFrom('audit_events')
    .where('site_id', '=', siteId)
    .$if(filter.action !== undefined, (qb) =>
      filter.action?.endsWith('.') ? qb.where('kind', 'like', `${filter.action}%`) : qb.where('kind', '=', filter.action ?? ''),
    )
    .$if(filter.actorId !== undefined, (qb) => qb.where('person_id', '=', filter.actorId ?? ''))
    .$if(filter.clientId !== undefined, (qb) => qb.where('client_id', '=', filter.clientId ?? ''))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Each filter's total as the service answers it (`answer`) beside the slow count of the events. */
export async function auditTotals(
  db: Kysely<Database>,
  siteId: string,
  filters: readonly AuditFilter[],
  answer: (filter: AuditFilter) => Promise<number>,
): Promise<{ answered: number[]; events: number[] }> {
  const answered: number[] = [];
  const events: number[] = [];
  for (const filter of filters) {
    answered.push(await answer(filter));
    events.push(await countedAuditEvents(db, siteId, filter));
  }
  return { answered, events };
}
