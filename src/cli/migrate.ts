// `schoolgate migrate` (CONTRACT 1): brings the database schema up to date.
import { parseArgs } from 'node:util';
import { openStore } from '../storage/connect.js';
import { migrateToLatest } from '../storage/migrate.js';
import { type Command, ENV_HELP, EXIT_OK, HELP_OPTION, parseOrUsage, printHelp, withConfig, writeLine } from './command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'bring the database schema up to date',
  help: `Usage: schoolgate migrate

Applies every migration the database has not run yet; running it again changes nothing.
Every other command also migrates before it starts, so this is for deployments that migrate first.

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(migrateCommand, ctx);
    const config = withConfig(ctx);
    const store = openStore(config.databaseUrl, { poolSize: 1 });
    try {
      const applied = await migrateToLatest(store);
      writeLine(ctx.io.stdout, applied.length === 0 ? 'The schema is up to date.' : `Applied: ${applied.join(', ')}`);
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
