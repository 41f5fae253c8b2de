// `schoolgate site create` (CONTRACT 1, 2): a school site with its origin, variant and first signing keys.
import { parseArgs } from 'node:util';
import { initialiseSiteKeys, signingKeyEncryptionKey } from '../keys/signing-keys.js';
import { normaliseOrigin, SITE_NAME_MAX_LENGTH, type Variant } from '../sites/site.js';
import { findSiteByOrigin, findSiteBySlug, insertSite } from '../sites/sites.repository.js';
import {
  type Command,
  CommandFailure,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  required,
  requireSecretOpensKeys,
  UsageError,
  withConfig,
  withStore,
  writeLine,
} from './command.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The origin as sites store it; a path, query or fragment would never match a request's origin, so it is refused. */
export function parseSiteOrigin(input: string): string {
  const origin = normaliseOrigin(input);
  const url = origin ? new URL(input) : undefined;
  if (!origin || !url || url.pathname !== '/' || url.search || url.hash) {
    throw new UsageError(
      `--origin must be an http(s) origin such as https://school.example (scheme, host, optional port, no path): got "${input}"`,
    );
  }
  return origin;
}

export const siteCreateCommand: Command = {
  name: 'site create',
  summary: 'create a site (origin, variant) with its signing keys',
  help: `Usage: schoolgate site create --slug <slug> --name <name> --origin <origin> --variant A|B [--mcp-beta]

Creates a school site. Requests are routed to it by their origin, which is also its OAuth issuer.
Its first ES256 signing keys (active and next) are created and sealed with SCHOOLGATE_SECRET.

Options:
  --slug <slug>        short name used by the other commands: lowercase letters, digits, dashes
  --name <name>        display name
  --origin <origin>    scheme://host[:port], e.g. https://school.example
  --variant A|B        A: Member API at /member/graphql, picture claim; B: Account API at /account/graphql
  --mcp-beta           enable the "MCP connections" beta feature

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({
        args,
        options: {
          slug: { type: 'string' },
          name: { type: 'string' },
          origin: { type: 'string' },
          variant: { type: 'string' },
          'mcp-beta': { type: 'boolean' },
          help: HELP_OPTION,
        },
        strict: true,
      }),
    );
    if (values.help) return printHelp(siteCreateCommand, ctx);
    const slug = required(values.slug, '--slug');
    if (!SLUG.test(slug)) throw new UsageError(`--slug must be lowercase letters, digits and dashes (at most 63): got "${slug}"`);
    const name = required(values.name, '--name');
    if (name.length > SITE_NAME_MAX_LENGTH) throw new UsageError(`--name may be at most ${SITE_NAME_MAX_LENGTH} characters`);
    const origin = parseSiteOrigin(required(values.origin, '--origin'));
    const variant = required(values.variant, '--variant').toUpperCase();
    if (variant !== 'A' && variant !== 'B') throw new UsageError(`--variant must be A or B: got "${values.variant}"`);

    const config = withConfig(ctx);
    const site = await withStore(config, async (store) => {
      if (await findSiteBySlug(store.db, slug)) throw new CommandFailure(`a site with slug "${slug}" already exists`);
      const holder = await findSiteByOrigin(store.db, origin);
      if (holder) throw new CommandFailure(`origin ${origin} already belongs to site "${holder.slug}"`);
      await requireSecretOpensKeys(store, config);
      const masterKey = signingKeyEncryptionKey(config.secret);
      return store.db.transaction().execute(async (trx) => {
        const created = await insertSite(
          trx,
          { slug, name, origin, variant: variant as Variant, mcpBeta: values['mcp-beta'] ?? false },
          ctx.clock,
        );
        await initialiseSiteKeys(trx, created.id, masterKey, ctx.clock);
        return created;
      });
    });
    const out = ctx.io.stdout;
    writeLine(out, `Created site ${site.slug} (${site.id}): ${site.name}, variant ${site.variant}${site.mcpBeta ? ', MCP beta on' : ''}`);
    writeLine(out, `  origin     ${site.origin}`);
    writeLine(out, `  discovery  ${site.origin}/.well-known/openid-configuration`);
    return EXIT_OK;
  },
};
