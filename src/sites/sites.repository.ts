// Site rows and origin -> site resolution (CONTRACT 2).
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { newId } from '../kernel/random.js';
import type { Database } from '../storage/schema.js';
import { type Site, siteFromRow, type Variant } from './site.js';

export async function listSites(db: Kysely<Database>): Promise<Site[]> {
  const rows = await db.selectFrom('sites').selectAll().orderBy('created_at').orderBy('slug').execute();
  return rows.map(siteFromRow);
}

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
