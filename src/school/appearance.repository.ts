// A site's appearance (CONTRACT 6 appearance): logo asset, primary and background colours, font stack,
// navigation. Read by the operator API and by the sign-in and consent pages; no row means the defaults.
import type { SiteScope } from './scope.js';

export const FONTS = ['system', 'serif', 'rounded', 'mono'] as const;
export type Font = (typeof FONTS)[number];

export interface NavigationItem {
  label: string;
  url: string;
}

export interface Appearance {
  logoAssetId: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
  font: Font;
  navigation: NavigationItem[];
  updatedAt: number | null;
}

export const DEFAULT_APPEARANCE: Appearance = {
  logoAssetId: null,
  primaryColor: null,
  backgroundColor: null,
  font: 'system',
  navigation: [],
  updatedAt: null,
};

function navigationOf(json: string): NavigationItem[] {
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? (parsed as NavigationItem[]) : [];
  } catch {
    return [];
  }
}

export async function findAppearance(scope: SiteScope): Promise<Appearance> {
  const row = await scope.db
    .selectFrom('site_appearance')
    .select(['logo_asset_id', 'primary_color', 'background_color', 'font', 'navigation', 'updated_at'])
    .where('site_id', '=', scope.siteId)
    .executeTakeFirst();
  if (!row) return DEFAULT_APPEARANCE;
  return {
    logoAssetId: row.logo_asset_id,
    primaryColor: row.primary_color,
    backgroundColor: row.background_color,
    font: (FONTS as readonly string[]).includes(row.font) ? (row.font as Font) : 'system',
    navigation: navigationOf(row.navigation),
    updatedAt: Number(row.updated_at),
  };
}

export async function saveAppearance(scope: SiteScope, appearance: Omit<Appearance, 'updatedAt'>, now: number): Promise<void> {
  const values = {
    logo_asset_id: appearance.logoAssetId,
    primary_color: appearance.primaryColor,
    background_color: appearance.backgroundColor,
    font: appearance.font,
    navigation: JSON.stringify(appearance.navigation),
    updated_at: now,
  };
  await scope.db
    .insertInto('site_appearance')
    .values({ site_id: scope.siteId, ...values })
    .onConflict((oc) => oc.column('site_id').doUpdateSet(values))
    .execute();
}
