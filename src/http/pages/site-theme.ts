// The theme of a site's pages from its stored appearance (CONTRACT 6 appearance): read when a sign-in or
// consent page is shown, so a change shows on the next page without a restart.
import type { Kysely } from 'kysely';
import { findAppearance } from '../../school/appearance.repository.js';
import type { Database } from '../../storage/schema.js';
import { type PageTheme, pageTheme } from './theme.js';

export async function siteTheme(db: Kysely<Database>, siteId: string): Promise<PageTheme | undefined> {
  const appearance = await findAppearance({ db, siteId });
  // Same origin (img-src 'self'): the page never names another host for its logo.
  return pageTheme(appearance, appearance.logoAssetId ? `/assets/${appearance.logoAssetId}` : null);
}
