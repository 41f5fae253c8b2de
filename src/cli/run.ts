// The `schoolgate` command dispatcher (CONTRACT 1): argv in, exit code out, no process globals touched
// except by `serve` (signals), so tests run it in-process.
import { ConfigError } from '../config/config.js';
import { type Clock, systemClock } from '../kernel/clock.js';
import { auditCommand } from './audit.js';
import { clientCreateCommand } from './client-create.js';
import { clientListCommand } from './client-list.js';
import {
  type CliContext,
  type CliIo,
  type Command,
  CommandFailure,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  UsageError,
  writeLine,
} from './command.js';
import { janitorCommand } from './janitor.js';
import { keysRotateCommand } from './keys-rotate.js';
import { migrateCommand } from './migrate.js';
import { roleGrantCommand } from './role-grant.js';
import { roleRevokeCommand } from './role-revoke.js';
import { secretResealCommand } from './secret-reseal.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';
import { siteCreateCommand } from './site-create.js';
import { siteListCommand } from './site-list.js';
import { userCreateCommand } from './user-create.js';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  seedCommand,
  siteCreateCommand,
  siteListCommand,
  userCreateCommand,
  roleGrantCommand,
  roleRevokeCommand,
  clientCreateCommand,
  clientListCommand,
  keysRotateCommand,
  secretResealCommand,
  auditCommand,
  janitorCommand,
];

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `schoolgate: multi-site OAuth 2.0 / OpenID Connect server for online-course schools

Usage: schoolgate <command> [options]

Commands:
${lines.join('\n')}

Run \`schoolgate <command> --help\` for a command's options.

Environment:
  DATABASE_URL        sqlite:<path> or postgres://... (default sqlite:./data/schoolgate.db)
  SCHOOLGATE_SECRET   master key, at least 32 characters (e.g. \`openssl rand -base64 48\`);
                      required by every command except \`serve --demo\` and \`seed --demo\`,
                      which generate one into the data folder when it is unset
  SCHOOLGATE_PREVIOUS_SECRET  while changing the secret: the one before (see \`secret reseal --help\`)
  SCHOOLGATE_CONFIG   platform config file (vendor integrations, CIMD policy, lifetimes)
  PORT, HOST          listening port (3000) and address (127.0.0.1) of \`serve\`
  REDIS_URL, REDIS_PREFIX, TRUST_PROXY  see \`schoolgate serve --help\`
  SCHOOLGATE_DEBUG=1  print stack traces of unexpected errors

Exit codes: 0 success, 1 failure, 2 usage error.
`;
}

function groupHelp(group: string): string {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  const subcommands = members.map((c) => c.name.slice(group.length + 1)).join('|');
  const lines = members.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: schoolgate ${group} <${subcommands}> [options]\n\n${lines.join('\n')}\n\nRun \`schoolgate ${group} <subcommand> --help\` for its options.\n`;
}

const isHelpFlag = (arg: string | undefined) => arg === '--help' || arg === '-h';

// pg reports a refused connection as an AggregateError with an empty message; name what it holds.
function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map((e) => describeError(e)).join('; ');
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return err.message || (typeof code === 'string' ? code : err.name);
  }
  return String(err);
}

interface Resolved {
  command: Command;
  rest: string[];
}

/** The command named by argv's first words, a help text to print, or a usage error. */
function resolve(argv: string[]): Resolved | { help: string; exitCode: number } {
  const [first, second] = argv;
  if (first === undefined) return { help: globalHelp(), exitCode: EXIT_USAGE };
  if (isHelpFlag(first)) return { help: globalHelp(), exitCode: EXIT_OK };
  if (first === 'help') {
    return argv.length === 1 ? { help: globalHelp(), exitCode: EXIT_OK } : resolveHelpFor(argv.slice(1));
  }
  const two = COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === first);
  if (one) return { command: one, rest: argv.slice(1) };
  if (COMMANDS.some((c) => c.name.startsWith(`${first} `))) {
    if (isHelpFlag(second)) return { help: groupHelp(first), exitCode: EXIT_OK };
    if (second === undefined) return { help: groupHelp(first), exitCode: EXIT_USAGE };
    throw new UsageError(`unknown command "${first} ${second}"\n${groupHelp(first)}`);
  }
  throw new UsageError(`unknown command "${first}"; run \`schoolgate --help\` for the list`);
}

function resolveHelpFor(words: string[]): { help: string; exitCode: number } {
  const found = resolve([...words, '--help']);
  if ('help' in found) return found;
  return { help: `${found.command.help}\n`, exitCode: EXIT_OK };
}

export interface RunOptions {
  clock?: Clock;
}

/**
 * Runs one `schoolgate` invocation and returns its exit code: 0 success, 1 failure, 2 usage error.
 * Everything is written to `io`; configuration comes from `env` only.
 */
export async function runCli(argv: string[], io: CliIo, env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<number> {
  const ctx: CliContext = { io, env, clock: options.clock ?? systemClock };
  let name = 'schoolgate';
  try {
    const found = resolve(argv);
    if ('help' in found) {
      (found.exitCode === EXIT_OK ? io.stdout : io.stderr).write(found.help);
      return found.exitCode;
    }
    name = `schoolgate ${found.command.name}`;
    return await found.command.run(found.rest, ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      writeLine(io.stderr, `${name}: ${err.message}`);
      if (name !== 'schoolgate') writeLine(io.stderr, `Run \`${name} --help\` for usage.`);
      return EXIT_USAGE;
    }
    if (err instanceof ConfigError || err instanceof CommandFailure) {
      writeLine(io.stderr, `${name}: ${err.message}`);
      return EXIT_FAILURE;
    }
    writeLine(io.stderr, `${name} failed: ${describeError(err)}`);
    if (env.SCHOOLGATE_DEBUG === '1' && err instanceof Error && err.stack) writeLine(io.stderr, err.stack);
    return EXIT_FAILURE;
  }
}
