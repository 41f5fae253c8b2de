// `schoolgate secret reseal`: moves the stored signing keys to a new SCHOOLGATE_SECRET. What the secret
// seals at rest is the signing keys (SPEC 5.3); what else is keyed by it (CSRF fields, MCP confirmations)
// lasts minutes and is still accepted under SCHOOLGATE_PREVIOUS_SECRET while the secret changes.
import { parseArgs } from 'node:util';
import {
  resealSigningKeys,
  SealedWithUnknownSecretError,
  signingKeyDecryptionKeys,
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
  UsageError,
  withConfig,
  withStore,
  writeLine,
} from './command.js';

export const secretResealCommand: Command = {
  name: 'secret reseal',
  summary: 'seal the stored signing keys with a new SCHOOLGATE_SECRET',
  help: `Usage: schoolgate secret reseal

Seals every stored signing key with SCHOOLGATE_SECRET, opening it with SCHOOLGATE_PREVIOUS_SECRET (or
SCHOOLGATE_SECRET, for keys already sealed with it), in one transaction: a key that neither opens leaves
every key as it was. The keys themselves do not change (\`schoolgate keys rotate\` replaces them).

Changing the secret without stopping the service:
  1. Restart every node with SCHOOLGATE_SECRET set to the new secret and SCHOOLGATE_PREVIOUS_SECRET to
     the old one: they open keys sealed with either and seal new ones with the new secret.
  2. Run \`schoolgate secret reseal\` with the same two variables.
  3. Restart every node without SCHOOLGATE_PREVIOUS_SECRET.
Forms opened in browsers and MCP confirmations issued before step 1 stay valid until step 3.
If the old secret may have leaked, rotate every site's keys as well: whoever read the database with it
holds the private keys.

${ENV_HELP}
  SCHOOLGATE_PREVIOUS_SECRET  the secret the keys are sealed with now`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(secretResealCommand, ctx);
    const config = withConfig(ctx);
    if (config.previousSecret === undefined)
      throw new UsageError(
        'set SCHOOLGATE_PREVIOUS_SECRET to the secret the keys are sealed with now, and SCHOOLGATE_SECRET to the new one',
      );
    const outcome = await withStore(config, async (store) => {
      try {
        return await resealSigningKeys(store.db, signingKeyDecryptionKeys(config), signingKeyEncryptionKey(config.secret));
      } catch (err) {
        if (err instanceof SealedWithUnknownSecretError) throw new CommandFailure(`${err.message}; nothing was changed`);
        throw err;
      }
    });
    writeLine(
      ctx.io.stdout,
      `Sealed ${outcome.resealed} signing key${outcome.resealed === 1 ? '' : 's'} with the new secret (${outcome.already} already were).`,
    );
    writeLine(ctx.io.stdout, 'Restart every node without SCHOOLGATE_PREVIOUS_SECRET.');
    return EXIT_OK;
  },
};
