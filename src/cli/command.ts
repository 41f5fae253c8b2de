// What every `schoolgate` command (CONTRACT 1) shares: its shape, argument parsing, typed exits, store access.
import { redisNames } from '../storage/redis-names.js';
import { announceChange } from '../storage/revocation-signals.js';
import { type Config, loadConfig } from '../config/config.js';
import type { Clock } from '../kernel/clock.js';
import { signingKeyDecryptionKeys, storedKeysOpenWith } from '../keys/signing-keys.js';
import { findSiteBySlug } from '../sites/sites.repository.js';
import type { Site } from '../sites/site.js';
import { COHERENT_CACHE_TTL_MS } from '../storage/coherent-cache.js';
import { openStore, type Store } from '../storage/connect.js';
import { migrateToLatest } from '../storage/migrate.js';

export interface OutputStream {
  write(chunk: string): unknown;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Ends `serve` when aborted; without it `serve` waits for SIGINT or SIGTERM. */
  shutdown?: AbortSignal;
}

export interface CliContext {
  io: CliIo;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

export interface Command {
  /** The words that select it, e.g. `site create`. */
  name: string;
  summary: string;
  /** The full `--help` text. */
  help: string;
  run(args: string[], ctx: CliContext): Promise<number>;
}

/** A wrong invocation: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A well-understood failure (unknown site, duplicate e-mail...): printed as is, exit code 1. */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The environment note every command that opens the database repeats in its help. */
export const ENV_HELP = `Environment:
  DATABASE_URL        sqlite:<path> or postgres://... (default sqlite:./data/schoolgate.db)
  SCHOOLGATE_SECRET   master key, at least 32 characters; required outside demo mode
                      (it encrypts the sites' signing keys: keep it, or the keys cannot be read)
  SCHOOLGATE_CONFIG   platform config file (vendors, CIMD policy, lifetimes)`;

/** The `--help` flag every command accepts. */
export const HELP_OPTION = { type: 'boolean', short: 'h' } as const;

/** Runs a parseArgs call, turning its complaints (unknown option, missing value...) into usage errors. */
export function parseOrUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Prints a command's help; its exit code is 0. */
export function printHelp(command: Command, ctx: CliContext): number {
  ctx.io.stdout.write(`${command.help}\n`);
  return EXIT_OK;
}

/** A required string option, trimmed; missing or empty is a usage error. */
export function required(value: string | undefined, flag: string): string {
  const v = value?.trim();
  if (!v) throw new UsageError(`${flag} is required`);
  return v;
}

export function withConfig(ctx: CliContext, demo = false): Config {
  return loadConfig({ env: ctx.env, demo });
}

/** Opens the configured database, brings its schema up to date, runs `fn` and always closes it. */
export async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * withStore for commands that change people, roles or applications: afterwards the serving processes
 * are told to drop what they cached of them. The change is committed by then, so a Redis that cannot be
 * reached is a warning, not a failure: the command's answer (a client secret shown once, say) is still
 * printed, and a retry would not repeat the change.
 */
export async function withStoreAnnouncingChange<T>(ctx: CliContext, fn: (store: Store) => Promise<T>): Promise<T> {
  const config = withConfig(ctx);
  return withStore(config, async (store) => {
    const result = await fn(store);
    try {
      await announceChange(store, config.redisUrl, redisNames(config.redisPrefix));
    } catch (err) {
      writeLine(
        ctx.io.stderr,
        `warning: the change is saved, but the serving nodes could not be told through Redis (${(err as Error).message}); ` +
          `they use it within ${COHERENT_CACHE_TTL_MS / 1000} s, when what they cached expires.`,
      );
    }
    return result;
  });
}

/**
 * Refuses a SCHOOLGATE_SECRET (and SCHOOLGATE_PREVIOUS_SECRET) that does not open the stored signing keys,
 * before it serves (every token request would fail) or seals new keys beside the old ones.
 */
export async function requireSecretOpensKeys(store: Store, config: Config): Promise<void> {
  if (await storedKeysOpenWith(store.db, signingKeyDecryptionKeys(config))) return;
  throw new CommandFailure(
    'SCHOOLGATE_SECRET does not open the signing keys stored in this database: they were sealed with another secret. ' +
      'Set the secret this database was created with (`serve --demo` without SCHOOLGATE_SECRET keeps the one it generated ' +
      'in secret.key in the data folder); to change the secret, see `schoolgate secret reseal --help`. Nothing was changed.',
  );
}

export async function requireSite(store: Store, slug: string): Promise<Site> {
  const site = await findSiteBySlug(store.db, slug);
  if (!site) throw new CommandFailure(`no site with slug "${slug}" (see \`schoolgate site list\`)`);
  return site;
}

export function writeLine(stream: OutputStream, line = ''): void {
  stream.write(`${line}\n`);
}
