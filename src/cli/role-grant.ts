// `schoolgate role grant` (CONTRACT 1; issue 2 section 2): a person's role at one site.
import { grantRole } from '../people/people.repository.js';
import { roleCommand } from './role-command.js';

export const roleGrantCommand = roleCommand({
  name: 'role grant',
  summary: 'give a person a role at a site',
  about: `Roles are per site. owner and admin operate the site (and may approve operator clients);
any role lets a person authorize the site's member applications. Granting a held role changes nothing.`,
  emailHint: ' (see `schoolgate user create`)',
  noPersonHint: ' (see `schoolgate user create`)',
  async change(store, ctx, { site, person, role }) {
    await grantRole(store.db, site.id, person.id, role, ctx.clock);
    return `${person.email} is ${role} at ${site.slug}.`;
  },
});
