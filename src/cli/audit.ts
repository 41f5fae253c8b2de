// `schoolgate audit` (issue 2 section 4): a site's audit log, newest first, one line per event.
import { parseArgs } from 'node:util';
import { listAudit } from '../audit/audit-log.js';
import {
  type Command,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  required,
  requireSite,
  UsageError,
  withConfig,
  withStore,
  writeLine,
} from './command.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

function parseLimit(input: string | undefined): number {
  if (input === undefined) return DEFAULT_LIMIT;
  const n = Number(input);
  if (!/^\d+$/.test(input) || n < 1 || n > MAX_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}: got "${input}"`);
  return n;
}

export const auditCommand: Command = {
  name: 'audit',
  summary: "list a site's audit log",
  help: `Usage: schoolgate audit --site <slug> [--limit N]

Newest first, one line per event, tab-separated: time (ISO 8601), kind, person (e-mail when
known, else id, or -), client_id (or -), detail (JSON). The log never holds a secret or a token.

Options:
  --site <slug>   the site (see \`schoolgate site list\`)
  --limit N       at most N events (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({ args, options: { site: { type: 'string' }, limit: { type: 'string' }, help: HELP_OPTION }, strict: true }),
    );
    if (values.help) return printHelp(auditCommand, ctx);
    const slug = required(values.site, '--site');
    const limit = parseLimit(values.limit);
    const { events, emails } = await withStore(withConfig(ctx), async (store) => {
      const site = await requireSite(store, slug);
      const events = await listAudit(store.db, site.id, limit);
      const ids = [...new Set(events.map((e) => e.personId).filter((id): id is string => id !== null))];
      const people = ids.length === 0 ? [] : await store.db.selectFrom('people').select(['id', 'email']).where('id', 'in', ids).execute();
      return { events, emails: new Map(people.map((p) => [p.id, p.email])) };
    });
    if (events.length === 0) {
      writeLine(ctx.io.stdout, `No audit events at ${slug} yet.`);
      return EXIT_OK;
    }
    for (const e of events) {
      const person = e.personId === null ? '-' : (emails.get(e.personId) ?? e.personId);
      writeLine(ctx.io.stdout, [new Date(e.at).toISOString(), e.kind, person, e.clientId ?? '-', JSON.stringify(e.detail)].join('\t'));
    }
    return EXIT_OK;
  },
};
