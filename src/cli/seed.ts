// `schoolgate seed --demo` (CONTRACT 1, 3): fills an empty database with the demo.
import { parseArgs } from 'node:util';
import { databaseIsEmpty, seedDemo } from '../demo/seed-demo.js';
import { signingKeyEncryptionKey } from '../keys/signing-keys.js';
import {
  type Command,
  CommandFailure,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  UsageError,
  withConfig,
  withStore,
} from './command.js';
import { formatDemoSummary } from './demo-summary.js';

export const seedCommand: Command = {
  name: 'seed',
  summary: 'fill an empty database with the demo (--demo)',
  help: `Usage: schoolgate seed --demo

Creates the demo of CONTRACT 3 (Demo Academy on http://localhost:$PORT, Demo Studio on
http://127.0.0.1:$PORT, four people, their roles, three member applications) in an empty
database. A database that already holds a site is left untouched and the command fails.

Without SCHOOLGATE_SECRET a demo secret is generated once into the data folder, as
\`serve --demo\` does, so both read the same signing keys.

Options:
  --demo     required: the demo is the only seed there is

${ENV_HELP}
  PORT                the port the demo origins name (default 3000)`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { demo: { type: 'boolean' }, help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(seedCommand, ctx);
    if (!values.demo) throw new UsageError('seed needs --demo (the demo is the only seed there is)');
    const config = withConfig(ctx, true);
    const summary = await withStore(config, async (store) => {
      if (!(await databaseIsEmpty(store.db))) {
        throw new CommandFailure('the database already holds sites: seed --demo fills an empty database only, and changed nothing');
      }
      return seedDemo({ db: store.db, masterKey: signingKeyEncryptionKey(config.secret), clock: ctx.clock, port: config.port });
    });
    ctx.io.stdout.write(`Seeded the demo.\n\n${formatDemoSummary(summary, config.platform.vendors)}`);
    return EXIT_OK;
  },
};
