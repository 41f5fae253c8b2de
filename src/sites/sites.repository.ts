// Site rows and origin -> site resolution (CONTRACT 2).
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { newId } from '../kernel/random.js';
import { defineQuery } from '../storage/precompiled.js';
import type { Database } from '../storage/schema.js';
import { type Site, siteFromRow, type Variant } from './site.js';

/** Sites in the order they were created (an index walk, migration 049); `limit` for a summary of a deployment with thousands. */
export async function listSites(db: Kysely<Database>, limit?: number): Promise<Site[]> {
  const rows = await db
    .selectFrom('sites')
    .selectAll()
    .orderBy('created_at')
    .orderBy('slug')
    .$if(limit !== undefined, (qb) => qb.limit(limit ?? 0))
    .execute();
  return rows.map(siteFromRow);
}

/** The site at an origin, through the unique index on `origin`. */
export async function findSiteByOrigin(db: Kysely<Database>, origin: string): Promise<Site | undefined> {
  const row = await siteByOrigin.first(db, { origin });
  return row ? siteFromRow(row) : undefined;
}

// Read whenever a site's short-lived entry in the directory runs out: compiled once.
const siteByOrigin = defineQuery(['origin'], (db, p) => db.selectFrom('sites').selectAll().where('origin', '=', p.origin));

export async function findSiteBySlug(db: Kysely<Database>, slug: string): Promise<Site | undefined> {
  const row = await db.selectFrom('sites').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row ? siteFromRow(row) : undefined;
}

export interface NewSite {
  slug: string;
  name: string;
  origin: string;
  variant: Variant;
  mcpBeta?: boolean;
}

export async function insertSite(db: Kysely<Database>, input: NewSite, clock: Clock): Promise<Site> {
  const row = {
    id: newId('site'),
    slug: input.slug,
    name: input.name,
    origin: input.origin,
    variant: input.variant,
    mcp_beta: input.mcpBeta ? 1 : 0,
    created_at: clock.now(),
  };
  await db.insertInto('sites').values(row).execute();
  return siteFromRow(row);
}

export async function updateSiteOrigin(db: Kysely<Database>, siteId: string, origin: string): Promise<void> {
  await db.updateTable('sites').set({ origin }).where('id', '=', siteId).execute();
}
