// `schoolgate role grant` (CONTRACT 1; issue 2 section 2): a person's role at one site.
import { parseArgs } from 'node:util';
import { findPersonByEmail, grantRole, type Role, ROLES } from '../people/people.repository.js';
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

export const roleGrantCommand: Command = {
  name: 'role grant',
  summary: 'give a person a role at a site',
  help: `Usage: schoolgate role grant --site <slug> --email <email> --role ${ROLES.join('|')}

Roles are per site. owner and admin operate the site (and may approve operator clients);
any role lets a person authorize the site's member applications. Granting a held role changes nothing.

Options:
  --site <slug>     the site (see \`schoolgate site list\`)
  --email <email>   the person (see \`schoolgate user create\`)
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
    if (values.help) return printHelp(roleGrantCommand, ctx);
    const slug = required(values.site, '--site');
    const email = required(values.email, '--email');
    const role = required(values.role, '--role');
    if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}: got "${role}"`);

    const { site, person } = await withStoreAnnouncingChange(ctx, async (store) => {
      const site = await requireSite(store, slug);
      const person = await findPersonByEmail(store.db, email);
      if (!person) throw new CommandFailure(`no person with e-mail ${email} (see \`schoolgate user create\`)`);
      await grantRole(store.db, site.id, person.id, role, ctx.clock);
      return { site, person };
    });
    writeLine(ctx.io.stdout, `${person.email} is ${role} at ${site.slug}.`);
    return EXIT_OK;
  },
};
