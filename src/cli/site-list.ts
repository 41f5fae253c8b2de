// `schoolgate site list` (CONTRACT 1): every site with its origin and variant.
import { parseArgs } from 'node:util';
import { listSites } from '../sites/sites.repository.js';
import { type Command, ENV_HELP, EXIT_OK, HELP_OPTION, parseOrUsage, printHelp, withConfig, withStore, writeLine } from './command.js';

export const siteListCommand: Command = {
  name: 'site list',
  summary: 'list the sites',
  help: `Usage: schoolgate site list

One line per site: slug, origin, variant, MCP beta, name.

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(siteListCommand, ctx);
    const sites = await withStore(withConfig(ctx), (store) => listSites(store.db));
    if (sites.length === 0) {
      writeLine(ctx.io.stdout, 'No sites yet (schoolgate site create --help).');
      return EXIT_OK;
    }
    for (const s of sites) {
      writeLine(ctx.io.stdout, [s.slug, s.origin, `variant ${s.variant}`, s.mcpBeta ? 'mcp-beta' : '-', s.name].join('\t'));
    }
    return EXIT_OK;
  },
};
