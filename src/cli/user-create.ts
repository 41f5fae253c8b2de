// `schoolgate user create` (CONTRACT 1; issue 2 section 2): one account per person across sites.
import { parseArgs } from 'node:util';
import { findPersonByEmail, insertPerson, normaliseEmail, PERSON_NAME_MAX_LENGTH } from '../people/people.repository.js';
import {
  type Command,
  CommandFailure,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  required,
  UsageError,
  withStoreAnnouncingChange,
  writeLine,
} from './command.js';

const MIN_PASSWORD_LENGTH = 8;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parsePictureUrl(input: string): string {
  try {
    const url = new URL(input);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // Reported below, with the value.
  }
  throw new UsageError(`--picture-url must be an http(s) URL: got "${input}"`);
}

export const userCreateCommand: Command = {
  name: 'user create',
  summary: 'create a person (one account across sites)',
  help: `Usage: schoolgate user create --email <email> --name <name> [--password <password>] [--picture-url <url>]

Creates a person. A person has one account across every site; give them roles with
\`schoolgate role grant\`. The password is stored only as an scrypt hash.

Options:
  --email <email>        sign-in e-mail (stored lowercase)
  --name <name>          display name (the name claim)
  --password <password>  at least ${MIN_PASSWORD_LENGTH} characters; prefer SCHOOLGATE_NEW_PASSWORD, since
                         command lines are visible to other users of the machine
  --picture-url <url>    picture claim (http or https)

${ENV_HELP}
  SCHOOLGATE_NEW_PASSWORD  the password, when --password is not given`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({
        args,
        options: {
          email: { type: 'string' },
          name: { type: 'string' },
          password: { type: 'string' },
          'picture-url': { type: 'string' },
          help: HELP_OPTION,
        },
        strict: true,
      }),
    );
    if (values.help) return printHelp(userCreateCommand, ctx);
    const email = normaliseEmail(required(values.email, '--email'));
    if (!EMAIL.test(email)) throw new UsageError(`--email is not an e-mail address: "${values.email}"`);
    const name = required(values.name, '--name');
    if (name.length > PERSON_NAME_MAX_LENGTH) throw new UsageError(`--name may be at most ${PERSON_NAME_MAX_LENGTH} characters`);
    const password = values.password ?? ctx.env.SCHOOLGATE_NEW_PASSWORD;
    if (!password) throw new UsageError('a password is required: set SCHOOLGATE_NEW_PASSWORD (or pass --password)');
    if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    const pictureUrl = values['picture-url'] === undefined ? null : parsePictureUrl(values['picture-url']);

    const person = await withStoreAnnouncingChange(ctx, async (store) => {
      if (await findPersonByEmail(store.db, email)) throw new CommandFailure(`a person with e-mail ${email} already exists`);
      return insertPerson(store.db, { email, name, password, pictureUrl }, ctx.clock);
    });
    writeLine(ctx.io.stdout, `Created ${person.email} (${person.id}): ${person.name}`);
    writeLine(ctx.io.stdout, `Give them a role: schoolgate role grant --site <slug> --email ${person.email} --role student`);
    return EXIT_OK;
  },
};
