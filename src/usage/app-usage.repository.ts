// The app usage log (migration 016): what each app used for each person, per UTC day. Written only in
// batches by UsageRecorder; read by the connections page (per app, last 7 days) and by a member's own
// apps page (per app, grouped by day and thing, so the page stays short).
import { type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface UsageRow {
  siteId: string;
  clientId: string;
  personId: string;
  day: string;
  what: string;
  write: number;
  requests: number;
  lastAt: number;
}

/** Rows per INSERT: 8 values each stays far below either dialect's bound on parameters. */
const CHUNK = 500;

/** Adds counts to the log; rows already there grow (every node adds its own counts). */
export async function addUsage(db: Kysely<Database>, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await trx
        .insertInto('app_usage')
        .values(
          rows.slice(i, i + CHUNK).map((r) => ({
            site_id: r.siteId,
            client_id: r.clientId,
            person_id: r.personId,
            day: r.day,
            what: r.what,
            write: r.write,
            requests: r.requests,
            last_at: r.lastAt,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['site_id', 'client_id', 'person_id', 'day', 'what']).doUpdateSet({
            requests: sql`app_usage.requests + excluded.requests`,
            last_at: sql`case when excluded.last_at > app_usage.last_at then excluded.last_at else app_usage.last_at end`,
            write: sql`case when excluded.write > app_usage.write then excluded.write else app_usage.write end`,
          }),
        )
        .execute();
    }
  });
}

export interface AppUsageSummary {
  requests: number;
  lastAt: number | null;
}

/** Per app at a site: requests since `sinceDay` (inclusive) and the last use ever recorded in that span. */
export async function usageByApp(db: Kysely<Database>, siteId: string, sinceDay: string): Promise<Map<string, AppUsageSummary>> {
  const rows = await db
    .selectFrom('app_usage')
    .where('site_id', '=', siteId)
    .where('day', '>=', sinceDay)
    .select(['client_id', (eb) => eb.fn.sum<number>('requests').as('requests'), (eb) => eb.fn.max('last_at').as('last_at')])
    .groupBy('client_id')
    .execute();
  return new Map(rows.map((r) => [r.client_id, { requests: Number(r.requests), lastAt: r.last_at === null ? null : Number(r.last_at) }]));
}

/** The last use of each app at a site, over the whole retained log. */
export async function lastUseByApp(db: Kysely<Database>, siteId: string, clientIds: readonly string[]): Promise<Map<string, number>> {
  if (clientIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('app_usage')
    .where('site_id', '=', siteId)
    .where('client_id', 'in', clientIds)
    .select(['client_id', (eb) => eb.fn.max('last_at').as('last_at')])
    .groupBy('client_id')
    .execute();
  return new Map(rows.map((r) => [r.client_id, Number(r.last_at)]));
}

export interface AccessLogEntry {
  clientId: string;
  day: string;
  what: string;
  write: boolean;
  requests: number;
  lastAt: number;
}

/** One person's use of their apps at a site, newest day first, then the most used things; at most `limit` rows. */
export async function personAccessLog(db: Kysely<Database>, siteId: string, personId: string, limit: number): Promise<AccessLogEntry[]> {
  const rows = await db
    .selectFrom('app_usage')
    .where('site_id', '=', siteId)
    .where('person_id', '=', personId)
    .select(['client_id', 'day', 'what', 'write', 'requests', 'last_at'])
    .orderBy('day', 'desc')
    .orderBy('requests', 'desc')
    .orderBy('what')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    clientId: r.client_id,
    day: r.day,
    what: r.what,
    write: r.write === 1,
    requests: Number(r.requests),
    lastAt: Number(r.last_at),
  }));
}

/** One person's last use of each app at a site. */
export async function personLastUse(db: Kysely<Database>, siteId: string, personId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('app_usage')
    .where('site_id', '=', siteId)
    .where('person_id', '=', personId)
    .select(['client_id', (eb) => eb.fn.max('last_at').as('last_at')])
    .groupBy('client_id')
    .execute();
  return new Map(rows.map((r) => [r.client_id, Number(r.last_at)]));
}
