// `schoolgate role revoke`: takes a person's role at one site away. Serving processes are told at once,
// and the person's tokens stop working on their next call where the role was what allowed them
// (oauth/standing.ts); nothing else is deleted, so granting the role again restores them.
import { revokeRole } from '../people/people.repository.js';
import { roleCommand } from './role-command.js';

export const roleRevokeCommand = roleCommand({
  name: 'role revoke',
  summary: 'take a role at a site away from a person',
  about: `Takes effect on the person's next request with any token whose client the remaining roles no
longer allow (operator clients need owner or admin; member applications any role). Their tokens
are kept: granting the role again makes them work again. Revoking a role not held changes nothing.`,
  emailHint: '',
  noPersonHint: '',
  async change(store, _ctx, { site, person, role }) {
    const held = await revokeRole(store.db, site.id, person.id, role);
    return held ? `${person.email} is no longer ${role} at ${site.slug}.` : `${person.email} was not ${role} at ${site.slug}.`;
  },
});
