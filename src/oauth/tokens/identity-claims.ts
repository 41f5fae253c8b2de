// The identity claims shared by the ID token and UserInfo (SPEC 2.3): one builder, so both carry the
// same values. `profile` releases name (and picture on variant A), `email` the address; sub, org_id and
// roles describe the member at this site and are always present.
import type { PersonLookup } from '../../people/people.repository.js';
import { type Site, variantCapabilities } from '../../sites/site.js';

export interface IdentityClaims {
  sub: string;
  org_id: string;
  roles: string[];
  name?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
}

export async function identityClaims(
  people: PersonLookup,
  site: Site,
  personId: string,
  scopes: readonly string[],
): Promise<IdentityClaims | undefined> {
  const person = people.known?.(site.id, personId) ?? (await people(site.id, personId));
  if (!person) return undefined;
  const claims: IdentityClaims = { sub: person.id, org_id: site.id, roles: person.roles };
  if (scopes.includes('profile')) {
    claims.name = person.name;
    if (variantCapabilities(site.variant).pictureClaim && person.pictureUrl) claims.picture = person.pictureUrl;
  }
  if (scopes.includes('email')) {
    claims.email = person.email;
    // Addresses are entered by operators, not verified by a mail round-trip: say so rather than guess.
    claims.email_verified = false;
  }
  return claims;
}
