// `schoolgate client create` (CONTRACT 1, SPEC 5.2): a member OAuth application; its secret is shown once.
import { parseArgs } from 'node:util';
import {
  createApplication,
  MEMBER_APP_SCOPES,
  MemberAppInputError,
  parseAppName,
  parseRedirectUris,
  parseScopeList,
} from '../clients/member-app-service.js';
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
  withStoreAnnouncingChange,
  writeLine,
} from './command.js';

/** The shared rules (clients/member-app-service.ts), with the option a broken rule came from. */
function checked<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof MemberAppInputError) throw new UsageError(`${option}: ${err.message}`);
    throw err;
  }
}

export const clientCreateCommand: Command = {
  name: 'client create',
  summary: 'create a member OAuth application at a site',
  help: `Usage: schoolgate client create --site <slug> --name <name> --kind public|confidential
                                --redirect-uri <uri> [--redirect-uri <uri>...] --scope "<scopes>"

Creates a member OAuth application: it acts for one signed-in person at one site.
A confidential application authenticates with client_secret_post; its secret is printed ONCE
and only its hash is stored, so it cannot be shown again. A public one uses PKCE alone (none).

Options:
  --site <slug>         the site (see \`schoolgate site list\`)
  --name <name>         shown on the consent page
  --kind <kind>         public (native and browser apps) or confidential (server-side apps)
  --redirect-uri <uri>  repeatable; https, http on loopback (matches any port), or com.example.app:/path
  --scope "<scopes>"    space-separated, within: ${MEMBER_APP_SCOPES.join(' ')}

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({
        args,
        options: {
          site: { type: 'string' },
          name: { type: 'string' },
          kind: { type: 'string' },
          'redirect-uri': { type: 'string', multiple: true },
          scope: { type: 'string' },
          help: HELP_OPTION,
        },
        strict: true,
      }),
    );
    if (values.help) return printHelp(clientCreateCommand, ctx);
    const slug = required(values.site, '--site');
    const name = checked('--name', () => parseAppName(required(values.name, '--name')));
    const kind = required(values.kind, '--kind');
    if (kind !== 'public' && kind !== 'confidential') throw new UsageError(`--kind must be public or confidential: got "${kind}"`);
    const uris = values['redirect-uri'] ?? [];
    if (uris.length === 0) throw new UsageError('at least one --redirect-uri is required');
    const redirectUris = checked('--redirect-uri', () => parseRedirectUris(uris));
    const scopes = checked('--scope', () => parseScopeList(required(values.scope, '--scope')));

    const { site, created } = await withStoreAnnouncingChange(ctx, async (store) => {
      const site = await requireSite(store, slug);
      const created = await createApplication(
        { db: store.db, clock: ctx.clock },
        { siteId: site.id, personId: null },
        { name, kind, redirectUris, scopes },
      );
      return { site, created };
    });
    const out = ctx.io.stdout;
    writeLine(out, `Created ${kind} member application "${name}" at ${site.slug}.`);
    writeLine(out, `  client_id      ${created.clientId}`);
    if (created.secret) {
      writeLine(out, `  client_secret  ${created.secret}`);
      writeLine(out, '  Store the secret now: it is shown this once and only its hash is kept.');
    }
    writeLine(out, `  auth method    ${created.secret ? 'client_secret_post' : 'none (PKCE S256)'}`);
    writeLine(out, `  redirect URIs  ${redirectUris.join(' ')}`);
    writeLine(out, `  scopes         ${scopes.join(' ')}`);
    writeLine(out, `  issuer         ${site.origin}`);
    if (!site.mcpBeta) {
      writeLine(
        out,
        `Note: MCP connections is off at ${site.slug}; the application works once an operator turns it on (${site.origin}/admin/settings/beta).`,
      );
    }
    return EXIT_OK;
  },
};
