// The apps connected to a site (issue 11): which hold live grants, for whom, with what scopes, and the
// revocations an operator or a member starts from the admin and account pages. A revocation ends the
// grants, and so every token under them, in one statement, then tells every node (storage/revocation-signals.ts).
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { RevocationSignals } from '../storage/revocation-signals.js';
import type { Database } from '../storage/schema.js';

export interface RevokeContext {
  db: Kysely<Database>;
  clock: Clock;
  signals?: RevocationSignals;
}

/** Beyond this many grants one flush is cheaper for every node than a signal per grant. */
const SIGNALS_PER_REVOCATION = 100;

/**
 * Ends every live grant of an app at a site (or only one person's), with all their tokens, at once.
 * Answers how many grants ended.
 */
export async function revokeAppAtSite(ctx: RevokeContext, siteId: string, clientId: string, personId?: string): Promise<number> {
  const now = ctx.clock.now();
  // One statement: the tokens answer to their grants (oauth/tokens/tokens.repository.ts), so ending the
  // grants ends every token under them, however many (migration 050).
  const ended = (
    await ctx.db
      .updateTable('grants')
      .set({ revoked_at: now })
      .where('site_id', '=', siteId)
      .where('client_id', '=', clientId)
      .$if(personId !== undefined, (qb) => qb.where('person_id', '=', personId ?? ''))
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute()
  ).map((g) => g.id);
  if (ctx.signals) {
    if (ended.length > SIGNALS_PER_REVOCATION) await ctx.signals.publish({ kind: 'flush' });
    else for (const grantId of ended) await ctx.signals.publish({ kind: 'grant', grantId });
  }
  return ended.length;
}

export interface Connection {
  clientId: string;
  /** How many people's grants this app holds here. */
  people: number;
  /** A few of them, by name, for the page. */
  somePeople: Array<{ id: string; name: string; email: string }>;
  scopes: string[];
  firstGrantedAt: number;
  lastGrantedAt: number;
}

/**
 * The apps holding live grants at a site, with each one's distinct scope strings (`scopes`) and first three
 * people by id (`names`), all stepped through migration 046's indexes of live grants: each step asks for the
 * next value after the last one, one index seek, where a DISTINCT would read every grant (PostgreSQL never
 * skips through an index by itself).
 */
function liveAppsStepwise(siteId: string) {
  const minLive = (column: 'client_id' | 'scope' | 'person_id', condition: RawBuilder<unknown>) =>
    sql`(select min(g.${sql.ref(column)}) from grants g where g.site_id = ${siteId} and g.revoked_at is null and ${condition})`;
  // The first app is asked in the step's shape (`>= ''` holds for every id): asked as a plain min() over
  // the site's grants, SQLite walked the index of all grants, revoked ones too, to the first live one.
  return sql`with recursive apps(client_id) as (
      select ${minLive('client_id', sql`g.client_id >= ''`)}
      union all
      select ${minLive('client_id', sql`g.client_id > apps.client_id`)} from apps where apps.client_id is not null
    ), scopes(client_id, scope) as (
      select a.client_id, ${minLive('scope', sql`g.client_id = a.client_id`)} from apps a where a.client_id is not null
      union all
      select s.client_id, ${minLive('scope', sql`g.client_id = s.client_id and g.scope > s.scope`)} from scopes s where s.scope is not null
    ), names(client_id, person_id, n) as (
      select a.client_id, ${minLive('person_id', sql`g.client_id = a.client_id`)}, 1 from apps a where a.client_id is not null
      union all
      select m.client_id, ${minLive('person_id', sql`g.client_id = m.client_id and g.person_id > m.person_id`)}, m.n + 1
      from names m where m.n < 3 and m.person_id is not null
    )`;
}

/**
 * Every app holding live grants at a site, most recently granted first. Only an app's count of people reads
 * its live grants one by one, from the index of their people; the rest are index seeks (100,000 grants at a
 * site: 250 ms on SQLite before migration 046).
 */
export async function listConnections(db: Kysely<Database>, siteId: string): Promise<Connection[]> {
  const ofApp = sql`g.site_id = ${siteId} and g.client_id = a.client_id and g.revoked_at is null`;
  const stepwise = liveAppsStepwise(siteId);
  const [totals, scopes, names] = await Promise.all([
    sql<{ client_id: string; people: number | string; first: number | string; last: number | string }>`${stepwise}
      select a.client_id,
        (select count(*) from (select distinct g.person_id from grants g where ${ofApp}) d) as people,
        (select min(g.created_at) from grants g where ${ofApp}) as first,
        (select max(g.created_at) from grants g where ${ofApp}) as last
      from apps a where a.client_id is not null`.execute(db),
    sql<{ client_id: string; scope: string }>`${stepwise} select client_id, scope from scopes where scope is not null`.execute(db),
    sql<{ client_id: string; id: string; name: string; email: string }>`${stepwise}
      select m.client_id, p.id, p.name, p.email from names m join people p on p.id = m.person_id order by m.client_id, p.name`.execute(db),
  ]);
  const scopesOf = new Map<string, Set<string>>();
  for (const row of scopes.rows) {
    const set = scopesOf.get(row.client_id) ?? new Set<string>();
    for (const s of row.scope.split(' ')) if (s) set.add(s);
    scopesOf.set(row.client_id, set);
  }
  const namesOf = new Map<string, Connection['somePeople']>();
  for (const row of names.rows)
    namesOf.set(row.client_id, [...(namesOf.get(row.client_id) ?? []), { id: row.id, name: row.name, email: row.email }]);
  return totals.rows
    .map((t) => ({
      clientId: t.client_id,
      people: Number(t.people),
      somePeople: namesOf.get(t.client_id) ?? [],
      scopes: [...(scopesOf.get(t.client_id) ?? [])],
      firstGrantedAt: Number(t.first),
      lastGrantedAt: Number(t.last),
    }))
    .sort((a, b) => b.lastGrantedAt - a.lastGrantedAt);
}

export interface PersonApp {
  clientId: string;
  /** What the person allowed (their stored consent), or what their live grants hold. */
  scopes: string[];
  allowedAt: number;
  hasLiveGrant: boolean;
}

/** The apps one person allowed at a site: their consents, and any app still holding a live grant of theirs. */
export async function personApps(db: Kysely<Database>, siteId: string, personId: string): Promise<PersonApp[]> {
  const [consents, grants] = await Promise.all([
    db
      .selectFrom('consents')
      .select(['client_id', 'scope', 'updated_at'])
      .where('site_id', '=', siteId)
      .where('person_id', '=', personId)
      .execute(),
    db
      .selectFrom('grants')
      .select(['client_id', 'scope', 'created_at'])
      .where('site_id', '=', siteId)
      .where('person_id', '=', personId)
      .where('revoked_at', 'is', null)
      .execute(),
  ]);
  const apps = new Map<string, PersonApp>();
  for (const c of consents)
    apps.set(c.client_id, { clientId: c.client_id, scopes: c.scope.split(' '), allowedAt: Number(c.updated_at), hasLiveGrant: false });
  for (const g of grants) {
    const app = apps.get(g.client_id);
    if (app) app.hasLiveGrant = true;
    else apps.set(g.client_id, { clientId: g.client_id, scopes: g.scope.split(' '), allowedAt: Number(g.created_at), hasLiveGrant: true });
  }
  return [...apps.values()].sort((a, b) => b.allowedAt - a.allowedAt);
}

/** A person withdraws an app: its grants and tokens end, and its consent is forgotten so it must ask again. */
export async function withdrawPersonApp(ctx: RevokeContext, siteId: string, personId: string, clientId: string): Promise<number> {
  const ended = await revokeAppAtSite(ctx, siteId, clientId, personId);
  await ctx.db
    .deleteFrom('consents')
    .where('site_id', '=', siteId)
    .where('person_id', '=', personId)
    .where('client_id', '=', clientId)
    .execute();
  return ended;
}
