// Runs the schoolgate CLI in-process (CONTRACT 1) and captures what it prints.
import type { Clock } from '../../src/kernel/clock.js';
import { runCli } from '../../src/cli/run.js';

/** 48 characters: long enough for loadConfig's minimum of 32. */
export const TEST_SECRET = 'cli-test-secret-0123456789abcdefghijklmnopqrstuv';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** The environment a CLI test passes: nothing is inherited from the developer's shell. */
export function cliEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { DATABASE_URL: databaseUrl, SCHOOLGATE_SECRET: TEST_SECRET, PORT: '4100', ...extra };
}

export async function cli(argv: string[], env: NodeJS.ProcessEnv, clock?: Clock): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(argv, { stdout, stderr }, env, clock ? { clock } : {});
  return { code, stdout: stdout.text, stderr: stderr.text };
}

export interface RunningCli {
  /** What it printed so far. */
  output(): CliResult;
  /** Resolves once `text` appears on stdout; rejects if the command ends first or after `timeoutMs`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Asks a long-running command (serve) to shut down and returns how it ended. */
  stop(): Promise<CliResult>;
}

/** Starts a long-running command such as `serve`, stopped through the io.shutdown signal instead of a process signal. */
export function startCli(argv: string[], env: NodeJS.ProcessEnv): RunningCli {
  const stdout = new Capture();
  const stderr = new Capture();
  const controller = new AbortController();
  let ended = false;
  const done = runCli(argv, { stdout, stderr, shutdown: controller.signal }, env).finally(() => {
    ended = true;
  });
  const output = (code = -1): CliResult => ({ code, stdout: stdout.text, stderr: stderr.text });
  return {
    output,
    async waitFor(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!stdout.text.includes(text)) {
        if (ended) throw new Error(`the command ended before printing "${text}": ${JSON.stringify(output(await done))}`);
        if (Date.now() > deadline) throw new Error(`"${text}" not printed within ${timeoutMs} ms: ${JSON.stringify(output())}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      controller.abort();
      return output(await done);
    },
  };
}
