// Uploaded assets of a site (CONTRACT 6 storage): the rows that say which stored file belongs to which
// site. Reads are by site and id, so another site's asset id is nobody's.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { SiteScope } from './scope.js';

export interface Asset {
  id: string;
  storageKey: string;
  mediaType: string;
  size: number;
  sha256: string;
  createdBy: string | null;
  createdAt: number;
}

export async function insertAsset(scope: SiteScope, asset: Asset): Promise<void> {
  await scope.db
    .insertInto('assets')
    .values({
      id: asset.id,
      site_id: scope.siteId,
      storage_key: asset.storageKey,
      media_type: asset.mediaType,
      size: asset.size,
      sha256: asset.sha256,
      created_by: asset.createdBy,
      created_at: asset.createdAt,
    })
    .execute();
}

export async function findAsset(scope: SiteScope, id: string): Promise<Asset | null> {
  const row = await scope.db
    .selectFrom('assets')
    .select(['id', 'storage_key', 'media_type', 'size', 'sha256', 'created_by', 'created_at'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    storageKey: row.storage_key,
    mediaType: row.media_type,
    size: Number(row.size),
    sha256: row.sha256,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
  };
}

/** Removes the row; answers the storage key of the file to remove, or null when there was none. */
export async function deleteAsset(scope: SiteScope, id: string): Promise<string | null> {
  const asset = await findAsset(scope, id);
  if (!asset) return null;
  await scope.db.deleteFrom('assets').where('site_id', '=', scope.siteId).where('id', '=', id).execute();
  return asset.storageKey;
}

/**
 * Which of these storage keys an asset row names, at any site: the sweep of files no row names
 * (assets/orphaned-files.ts) asks this of the files it found, a batch at a time, through the unique index.
 */
export async function storageKeysInUse(db: Kysely<Database>, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('assets').select('storage_key').where('storage_key', 'in', keys).execute();
  return new Set(rows.map((row) => row.storage_key));
}
