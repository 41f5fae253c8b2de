// SPEC 5.2, 4.4: a token is worth no more than the standing of the person it speaks for. Who may approve
// a client (scopes.ts `mayApprove`) is decided at consent, and decided again here on every use of a
// token it led to: a demoted operator's next call is refused, as is a member app's token once its person
// holds no role at the site. People are read through the coherent cache, so a role change reaches every
// node through the revocation signals, with no delay beyond theirs. Nothing is revoked: a restored role
// makes the same tokens work again. The same holds for the site's "MCP connections" beta (issue 11):
// while an operator has it off, member applications' tokens are refused; turned on again, they work.
import type { PersonLookup, PersonWithRoles } from '../people/people.repository.js';
import type { ClientResolver } from '../clients/resolve-client.js';
import type { Site } from '../sites/site.js';
import { mayApprove } from './scopes.js';

export interface StandingCheck {
  /** Why the person may no longer hold what this client was allowed at this site; null while they may. */
  refusal(site: Site, clientId: string, personId: string): Promise<string | null>;
  /** The same verdict when it can be given from memory at once; undefined when the store must be asked. */
  knownRefusal(site: Site, clientId: string, personId: string): string | null | undefined;
}

export const LOST_STANDING = 'the person no longer holds a role at this site that allows this application, or is suspended here';
export const MCP_CONNECTIONS_OFF =
  'MCP connections are turned off at this site: its member applications cannot be used until an operator turns them on again';

export function createStandingCheck(clients: Pick<ClientResolver, 'audienceOf'>, people: PersonLookup): StandingCheck {
  const verdict = (audience: ReturnType<typeof clients.audienceOf>, person: PersonWithRoles | undefined) =>
    person !== undefined && !person.suspended && mayApprove({ audience }, person.roles) ? null : LOST_STANDING;
  return {
    async refusal(site, clientId, personId) {
      const audience = clients.audienceOf(clientId);
      if (audience === 'member' && !site.mcpBeta) return MCP_CONNECTIONS_OFF;
      return verdict(audience, await people(site.id, personId));
    },
    knownRefusal(site, clientId, personId) {
      const audience = clients.audienceOf(clientId);
      if (audience === 'member' && !site.mcpBeta) return MCP_CONNECTIONS_OFF;
      const person = people.known?.(site.id, personId);
      return person === undefined ? undefined : verdict(audience, person);
    },
  };
}
