// A site's own decision on a Client ID Metadata Document client (issue 11, SPEC 4.2 rule 4): `reviewed`
// lets it ask for write scopes here, `blocked` refuses it here. Without a row, the platform's
// `cimd.reviewed_hosts` decides. Serving processes cache decisions; whoever changes one publishes a flush.
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database, SiteClientDecisionsTable } from '../storage/schema.js';

export type ClientDecision = SiteClientDecisionsTable['decision'];

export async function findClientDecision(db: Kysely<Database>, siteId: string, clientId: string): Promise<ClientDecision | null> {
  const row = await db
    .selectFrom('site_client_decisions')
    .select('decision')
    .where('site_id', '=', siteId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row?.decision ?? null;
}

export async function listClientDecisions(db: Kysely<Database>, siteId: string): Promise<SiteClientDecisionsTable[]> {
  return db.selectFrom('site_client_decisions').selectAll().where('site_id', '=', siteId).orderBy('decided_at', 'desc').execute();
}

/** Records a decision (replacing an earlier one), or with null returns the client to the platform default. */
export async function decideClient(
  db: Kysely<Database>,
  siteId: string,
  clientId: string,
  decision: ClientDecision | null,
  personId: string,
  clock: Clock,
): Promise<void> {
  if (decision === null) {
    await db.deleteFrom('site_client_decisions').where('site_id', '=', siteId).where('client_id', '=', clientId).execute();
    return;
  }
  await db
    .insertInto('site_client_decisions')
    .values({ site_id: siteId, client_id: clientId, decision, decided_by: personId, decided_at: clock.now() })
    .onConflict((oc) => oc.columns(['site_id', 'client_id']).doUpdateSet({ decision, decided_by: personId, decided_at: clock.now() }))
    .execute();
}
