// `schoolgate client create` (CONTRACT 1, SPEC 5.2): a member OAuth application; its secret is shown once.
import { parseArgs } from 'node:util';
import { recordAudit } from '../audit/audit-log.js';
import { createMemberApp } from '../clients/member-apps.repository.js';
import { isLoopbackRedirect } from '../clients/redirect-uris.js';
import { splitSpaceList } from '../kernel/result.js';
import { IDENTITY_SCOPES, MEMBER_SCOPES } from '../oauth/scopes.js';
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
  withStoreAnnouncingChange,
  writeLine,
} from './command.js';

/** A member application may hold identity and member scopes only (SPEC 5.2). */
const MEMBER_APP_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...MEMBER_SCOPES];

/** The scopes in catalogue order; anything outside the member audience is a usage error. */
export function parseMemberScopes(input: string): string[] {
  const requested = splitSpaceList(input.replace(/[\s,]+/g, ' '));
  if (requested.length === 0) throw new UsageError('--scope needs at least one scope');
  const outside = requested.filter((s) => !MEMBER_APP_SCOPES.includes(s));
  if (outside.length > 0) {
    throw new UsageError(`--scope: ${outside.join(' ')} not allowed; member applications may hold only ${MEMBER_APP_SCOPES.join(' ')}`);
  }
  return MEMBER_APP_SCOPES.filter((s) => requested.includes(s));
}

/**
 * https anywhere; http only on loopback (RFC 8252 7.3, where any port matches); a private-use scheme
 * in reverse-domain form for native apps (RFC 8252 7.1). Never a fragment (RFC 6749 3.1.2).
 */
export function parseRedirectUri(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UsageError(`--redirect-uri is not an absolute URI: "${input}"`);
  }
  if (url.hash || input.includes('#')) throw new UsageError(`--redirect-uri must not have a fragment: "${input}"`);
  const scheme = url.protocol.slice(0, -1);
  const ok = scheme === 'https' || (scheme === 'http' ? isLoopbackRedirect(input) : scheme.includes('.'));
  if (!ok) {
    throw new UsageError(
      `--redirect-uri "${input}" is not allowed: use https, http on a loopback host (127.0.0.1, [::1], localhost), or a reverse-domain scheme such as com.example.app:/callback`,
    );
  }
  return input;
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
    const name = required(values.name, '--name');
    const kind = required(values.kind, '--kind');
    if (kind !== 'public' && kind !== 'confidential') throw new UsageError(`--kind must be public or confidential: got "${kind}"`);
    const uris = values['redirect-uri'] ?? [];
    if (uris.length === 0) throw new UsageError('at least one --redirect-uri is required');
    const redirectUris = [...new Set(uris.map((u) => parseRedirectUri(u.trim())))];
    const scopes = parseMemberScopes(required(values.scope, '--scope'));

    const { site, created } = await withStoreAnnouncingChange(withConfig(ctx), async (store) => {
      const site = await requireSite(store, slug);
      const created = await store.db.transaction().execute(async (trx) => {
        const app = await createMemberApp(trx, { siteId: site.id, name, kind, redirectUris, scopes }, ctx.clock);
        await recordAudit(
          trx,
          { siteId: site.id, kind: 'client.created', clientId: app.clientId, detail: { name, kind, scope: scopes.join(' ') } },
          ctx.clock,
        );
        return app;
      });
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
    return EXIT_OK;
  },
};
