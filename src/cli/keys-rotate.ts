// `schoolgate keys rotate` (SPEC 5.3; issue 2 section 3): next -> active -> retired, publish before use.
import { parseArgs } from 'node:util';
import { recordAudit } from '../audit/audit-log.js';
import {
  JWKS_MAX_AGE_SECONDS,
  MIN_NEXT_KEY_AGE_SECONDS,
  NextKeyTooNewError,
  rotateSiteKeys,
  signingKeyEncryptionKey,
} from '../keys/signing-keys.js';
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
  requireSite,
  withConfig,
  withStore,
  writeLine,
} from './command.js';

/** Clock skew a relying party may still allow on an ID token's exp, on top of its lifetime. */
const RETIRE_MARGIN_SECONDS = 120;

export const keysRotateCommand: Command = {
  name: 'keys rotate',
  summary: "rotate a site's signing keys",
  help: `Usage: schoolgate keys rotate --site <slug> [--force]

The published next key starts signing, the signing key is retired, and a new next key is
published. Relying parties have seen a key in the JWKS before its first use; a retired key
stays published for the ID token lifetime plus ${RETIRE_MARGIN_SECONDS} s, so every token it signed still
verifies. Recorded in the site's audit log as keys.rotated.

A rotation is refused while the next key is younger than ${MIN_NEXT_KEY_AGE_SECONDS} s: relying parties cache
the JWKS for ${JWKS_MAX_AGE_SECONDS} s and must have seen a key before it signs.

Options:
  --site <slug>   the site (see \`schoolgate site list\`)
  --force         rotate even if the next key is new (an emergency: some clients may refetch the JWKS)

${ENV_HELP}`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() =>
      parseArgs({ args, options: { site: { type: 'string' }, force: { type: 'boolean' }, help: HELP_OPTION }, strict: true }),
    );
    if (values.help) return printHelp(keysRotateCommand, ctx);
    const slug = required(values.site, '--site');
    const config = withConfig(ctx);
    const retireAfterSeconds = config.platform.lifetimes.id_token + RETIRE_MARGIN_SECONDS;
    const result = await withStore(config, async (store) => {
      const site = await requireSite(store, slug);
      await requireSecretOpensKeys(store, config);
      let rotated: Awaited<ReturnType<typeof rotateSiteKeys>>;
      try {
        rotated = await rotateSiteKeys(store.db, site.id, signingKeyEncryptionKey(config.secret), retireAfterSeconds, ctx.clock, {
          minNextKeyAgeSeconds: values.force ? 0 : MIN_NEXT_KEY_AGE_SECONDS,
        });
      } catch (err) {
        if (err instanceof NextKeyTooNewError) throw new CommandFailure(err.message);
        throw err;
      }
      await recordAudit(
        store.db,
        { siteId: site.id, kind: 'keys.rotated', detail: { activated: rotated.activated, retired: rotated.retired, next: rotated.next } },
        ctx.clock,
      );
      return rotated;
    });
    const out = ctx.io.stdout;
    writeLine(out, `Rotated the signing keys of ${slug}.`);
    writeLine(out, `  activated  ${result.activated}`);
    writeLine(
      out,
      `  retired    ${result.retired.length > 0 ? result.retired.join(' ') : '(none)'}${result.retired.length > 0 ? ` (published for ${retireAfterSeconds} s more)` : ''}`,
    );
    writeLine(out, `  next       ${result.next}`);
    return EXIT_OK;
  },
};
