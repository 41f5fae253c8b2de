// `schoolgate role revoke`: takes a person's role at one site away. Serving processes are told at once,
// and the person's tokens stop working on their next call where the role was what allowed them
// (oauth/standing.ts); nothing else is deleted, so granting the role again restores them.
import { parseArgs } from 'node:util';
import { findPersonByEmail, type Role, ROLES, revokeRole } from '../people/people.repository.js';
import {
  type Command,
  CommandFailure,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  required,
  requireSite,
  UsageError,
  withStoreAnnouncingChange,
  writeLine,
} from './command.js';

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export const roleRevokeCommand: Command = {
  name: 'role revoke',
  summary: 'take a role at a site away from a person',
  help: `Usage: schoolgate role revoke --site <slug> --email <email> --role ${ROLES.join('|')}

Takes effect on the person's next request with any token whose client the remaining roles no
longer allow (operator clients need owner or admin; member applications any role). Their tokens
are kept: granting the role again makes them work again. Revoking a role not held changes nothing.

Options:
  --site <slug>     the site (see \`schoolgate site list\`)
  --email <email>   the person
  --role <role>     one of ${ROLES.join(', ')}

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({
        args,
        options: { site: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, help: HELP_OPTION },
        strict: true,
      }),
    );
    if (values.help) return printHelp(roleRevokeCommand, ctx);
    const slug = required(values.site, '--site');
    const email = required(values.email, '--email');
    const role = required(values.role, '--role');
    if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}: got "${role}"`);

    const { site, person, held } = await withStoreAnnouncingChange(ctx, async (store) => {
      const site = await requireSite(store, slug);
      const person = await findPersonByEmail(store.db, email);
      if (!person) throw new CommandFailure(`no person with e-mail ${email}`);
      const held = await revokeRole(store.db, site.id, person.id, role);
      return { site, person, held };
    });
    writeLine(
      ctx.io.stdout,
      held ? `${person.email} is no longer ${role} at ${site.slug}.` : `${person.email} was not ${role} at ${site.slug}.`,
    );
    return EXIT_OK;
  },
};
