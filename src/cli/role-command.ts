// What `role grant` and `role revoke` share: the same three options (a site, a person by e-mail, a role),
// checked the same way, and one change made in a store that tells the serving processes.
import { parseArgs } from 'node:util';
import { findPersonByEmail, type Role, ROLES } from '../people/people.repository.js';
import type { Site } from '../sites/site.js';
import type { Store } from '../storage/connect.js';
import type { PeopleTable } from '../storage/schema.js';
import {
  type Command,
  type CliContext,
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

export interface RoleChange {
  name: string;
  summary: string;
  /** What the command does, between its usage line and its options. */
  about: string;
  /** Said after `no person with e-mail …`. */
  noPersonHint: string;
  /** Said after `the person` in the options. */
  emailHint: string;
  /** Makes the change; answers the line printed on success. */
  change(store: Store, ctx: CliContext, target: { site: Site; person: PeopleTable; role: Role }): Promise<string>;
}

export function roleCommand(spec: RoleChange): Command {
  const command: Command = {
    name: spec.name,
    summary: spec.summary,
    help: `Usage: schoolgate ${spec.name} --site <slug> --email <email> --role ${ROLES.join('|')}

${spec.about}

Options:
  --site <slug>     the site (see \`schoolgate site list\`)
  --email <email>   the person${spec.emailHint}
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
      if (values.help) return printHelp(command, ctx);
      const slug = required(values.site, '--site');
      const email = required(values.email, '--email');
      const role = required(values.role, '--role');
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}: got "${role}"`);

      const said = await withStoreAnnouncingChange(ctx, async (store) => {
        const site = await requireSite(store, slug);
        const person = await findPersonByEmail(store.db, email);
        if (!person) throw new CommandFailure(`no person with e-mail ${email}${spec.noPersonHint}`);
        return spec.change(store, ctx, { site, person, role });
      });
      writeLine(ctx.io.stdout, said);
      return EXIT_OK;
    },
  };
  return command;
}
