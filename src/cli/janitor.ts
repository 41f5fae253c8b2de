// `schoolgate janitor --once`: purges what has expired now and prints what went (issue 8). `serve` runs
// the same janitor on its own every janitor.interval_seconds; this is for cron jobs and for operators
// who turned that off.
import { parseArgs } from 'node:util';
import { removeAbandonedUploads } from '../assets/abandoned-uploads.js';
import { removeOrphanedFiles } from '../assets/orphaned-files.js';
import { configuredAssetStore } from '../assets/configured-asset-store.js';
import { Janitor, janitorOptions, PURGED_TABLES } from '../maintenance/janitor.js';
import { openStore } from '../storage/connect.js';
import { migrateToLatest } from '../storage/migrate.js';
import { type Command, ENV_HELP, EXIT_OK, HELP_OPTION, parseOrUsage, printHelp, UsageError, withConfig, writeLine } from './command.js';

export const janitorCommand: Command = {
  name: 'janitor',
  summary: 'purge expired codes, tokens, grants, sessions and sign-in counters once',
  help: `Usage: schoolgate janitor --once

Deletes, in small batches, what can no longer be used: authorization codes an hour past expiry,
expired access and refresh tokens, the grants whose refresh family has expired, expired sessions and
sign-in counters untouched for a day; and, on local disk, the partial files of uploads a crash
cut off and the finished files no asset names, once nothing has written to them for a day. Live
requests are not held up while it runs.
\`serve\` does this on its own every janitor.interval_seconds (platform config; 0 turns it off).
On PostgreSQL only one node purges at a time; a run that finds another one busy says so.

Options:
  --once   purge now and exit (required: the schedule belongs to \`serve\`)

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { once: { type: 'boolean' }, help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(janitorCommand, ctx);
    if (!values.once) throw new UsageError('say --once: `schoolgate serve` runs the janitor on a schedule itself');
    const config = withConfig(ctx);
    const store = openStore(config.databaseUrl, { poolSize: 1 });
    try {
      await migrateToLatest(store);
      const janitor = new Janitor(store.db, store.dialect, ctx.clock, undefined, janitorOptions(config.platform.janitor));
      const report = await janitor.runOnce();
      if (!report) {
        writeLine(ctx.io.stdout, 'Another node is purging right now; nothing was done.');
        return EXIT_OK;
      }
      const assets = configuredAssetStore(config);
      const uploads = await removeAbandonedUploads(assets, ctx.clock.now());
      const orphans = await removeOrphanedFiles(assets, store.db, ctx.clock.now());
      for (const table of PURGED_TABLES) writeLine(ctx.io.stdout, `${table.padEnd(20)} ${report[table]} deleted`);
      writeLine(ctx.io.stdout, `${'abandoned uploads'.padEnd(20)} ${uploads} removed`);
      writeLine(ctx.io.stdout, `${'orphaned files'.padEnd(20)} ${orphans} removed`);
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
