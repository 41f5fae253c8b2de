// SPEC 5.2, 4.4: a token is worth no more than the standing of the person it speaks for. Who may approve
// a client (scopes.ts `mayApprove`) is decided at consent, and decided again here on every use of a
// token it led to: a demoted operator's next call is refused, as is a member app's token once its person
// holds no role at the site. People are read through the coherent cache, so a role change reaches every
// node through the revocation signals, with no delay beyond theirs. Nothing is revoked: a restored role
// makes the same tokens work again.
import type { PersonLookup } from '../people/people.repository.js';
import type { ClientResolver } from '../clients/resolve-client.js';
import { mayApprove } from './scopes.js';

export interface StandingCheck {
  /** True while the person may still hold what this client was allowed at this site. */
  holds(siteId: string, clientId: string, personId: string): Promise<boolean>;
}

export function createStandingCheck(clients: Pick<ClientResolver, 'audienceOf'>, people: PersonLookup): StandingCheck {
  return {
    async holds(siteId, clientId, personId) {
      const person = await people(siteId, personId);
      return person !== undefined && !person.suspended && mayApprove({ audience: clients.audienceOf(clientId) }, person.roles);
    },
  };
}

export const LOST_STANDING = 'the person no longer holds a role at this site that allows this application, or is suspended here';
