// `schoolgate client list` (CONTRACT 1): a site's member OAuth applications, never their secrets.
import { parseArgs } from 'node:util';
import { listMemberApps } from '../clients/member-apps.repository.js';
import {
  type Command,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  required,
  requireSite,
  withConfig,
  withStore,
  writeLine,
} from './command.js';

export const clientListCommand: Command = {
  name: 'client list',
  summary: "list a site's member OAuth applications",
  help: `Usage: schoolgate client list --site <slug>

One line per member application: client_id, kind, name, scopes, redirect URIs.
Secrets are never shown: only their hashes are stored.

Options:
  --site <slug>   the site (see \`schoolgate site list\`)

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { site: { type: 'string' }, help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(clientListCommand, ctx);
    const slug = required(values.site, '--site');
    const apps = await withStore(withConfig(ctx), async (store) => listMemberApps(store.db, (await requireSite(store, slug)).id));
    if (apps.length === 0) {
      writeLine(ctx.io.stdout, `No member applications at ${slug} (schoolgate client create --help).`);
      return EXIT_OK;
    }
    for (const app of apps) {
      const uris = (JSON.parse(app.redirect_uris) as string[]).join(' ');
      writeLine(ctx.io.stdout, [app.client_id, app.kind, app.name, `scope="${app.scopes}"`, uris].join('\t'));
    }
    return EXIT_OK;
  },
};
