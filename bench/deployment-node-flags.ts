// The Node flags a deployment starts the server with, read from `npm start` in package.json, so that the
// benchmarks run the server as `npm start` runs it (issue 12). The container image's CMD carries the same
// flags (test/cli/deployment-node-flags.test.ts). BENCH_NODE_FLAGS replaces them to compare, "" for Node's
// own defaults.
import { readFileSync } from 'node:fs';

/** The flags between `node` and the build's entry in a command line, or undefined when it does not run it. */
export function nodeFlagsOf(commandLine: string): string[] | undefined {
  const match = /(?:^|\s)node((?:\s+--\S+)*)\s+dist\/src\/main\.js(?:\s|$)/.exec(commandLine);
  return match ? (match[1] ?? '').trim().split(/\s+/).filter(Boolean) : undefined;
}

/** The flags of `npm start`. */
export function startScriptNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const flags = nodeFlagsOf(pkg.scripts.start);
  if (flags === undefined) throw new Error('npm start does not run dist/src/main.js with node');
  return flags;
}

/** What the benchmarks start the server with: `npm start`'s flags, or BENCH_NODE_FLAGS when set. */
export function deploymentNodeFlags(): string[] {
  const override = process.env.BENCH_NODE_FLAGS;
  return override === undefined ? startScriptNodeFlags() : override.split(/\s+/).filter(Boolean);
}
