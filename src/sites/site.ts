// A school site (SPEC 1): one origin, one issuer, one variant.
import type { SitesTable } from '../storage/schema.js';

export type Variant = 'A' | 'B';

export interface Site {
  id: string;
  slug: string;
  name: string;
  /** The origin and the issuer: every URL we print starts with it (CONTRACT 2). */
  origin: string;
  variant: Variant;
  mcpBeta: boolean;
}

/** The longest school name, however it is set (operator API, CLI): it heads every page of the school. */
export const SITE_NAME_MAX_LENGTH = 200;

export function siteFromRow(row: SitesTable): Site {
  return { id: row.id, slug: row.slug, name: row.name, origin: row.origin, variant: row.variant, mcpBeta: row.mcp_beta === 1 };
}

/** What each variant offers (SPEC 1 table); read by discovery, the APIs and the ID token alike. */
export interface VariantCapabilities {
  graphqlPath: '/member/graphql' | '/account/graphql';
  apiName: 'Member API' | 'Account API';
  /** Notification inbox fields and mutations, and `schools` on viewer. */
  inbox: boolean;
  /** ID token and UserInfo carry `picture`. */
  pictureClaim: boolean;
  /** `/mcp` answers 503 when it cannot reach a verdict on a token. */
  mcpUnavailable503: boolean;
}

const CAPABILITIES: Record<Variant, VariantCapabilities> = {
  A: { graphqlPath: '/member/graphql', apiName: 'Member API', inbox: true, pictureClaim: true, mcpUnavailable503: true },
  B: { graphqlPath: '/account/graphql', apiName: 'Account API', inbox: false, pictureClaim: false, mcpUnavailable503: false },
};

export function variantCapabilities(variant: Variant): VariantCapabilities {
  return CAPABILITIES[variant];
}

/**
 * Normalises an origin the way sites are stored: lowercase scheme and host, default ports dropped, no
 * path. Returns null for anything that is not an http(s) origin.
 */
export function normaliseOrigin(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  return url.origin;
}
