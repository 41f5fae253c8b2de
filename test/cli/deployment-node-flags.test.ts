// The server starts with the same Node flags wherever a deployment starts it: `npm start`, the container
// image's CMD, and the benchmarks (bench/deployment-node-flags.ts reads `npm start`'s), so what the
// benchmarks measure is what runs. Why the flags: README, "Tests and benchmarks".
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deploymentNodeFlags, nodeFlagsOf, startScriptNodeFlags } from '../../bench/deployment-node-flags.js';

const root = new URL('../../', import.meta.url);

/** The node flags of the Dockerfile's CMD (exec form), or undefined when it does not run the build. */
function dockerfileNodeFlags(): string[] | undefined {
  const cmd = readFileSync(new URL('Dockerfile', root), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('CMD '))
    .at(-1);
  if (cmd === undefined) return undefined;
  const words = JSON.parse(cmd.slice('CMD '.length)) as string[];
  return nodeFlagsOf(words.join(' '));
}

describe('the Node flags a deployment starts the server with', () => {
  it('are the same for npm start, the container image and the benchmarks, and include a larger young generation', () => {
    const start = startScriptNodeFlags();
    expect(start.some((flag) => /^--max-semi-space-size=\d+$/.test(flag))).toBe(true);
    expect(dockerfileNodeFlags()).toEqual(start);
    const saved = process.env.BENCH_NODE_FLAGS;
    delete process.env.BENCH_NODE_FLAGS;
    try {
      expect(deploymentNodeFlags()).toEqual(start);
    } finally {
      if (saved !== undefined) process.env.BENCH_NODE_FLAGS = saved;
    }
  });

  it('are flags this Node accepts, in the command line and in NODE_OPTIONS (as the README gives them for npx)', () => {
    const flags = startScriptNodeFlags();
    const inArgs = spawnSync(process.execPath, [...flags, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(inArgs.stderr).toBe('');
    expect(inArgs.status).toBe(0);
    const inOptions = spawnSync(process.execPath, ['-e', 'process.exit(0)'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: flags.join(' ') },
    });
    expect(inOptions.stderr).toBe('');
    expect(inOptions.status).toBe(0);
  });

  it('are read from a command line only where it runs the build with node', () => {
    expect(nodeFlagsOf('npm run build && node --a=1 --b dist/src/main.js serve --demo')).toEqual(['--a=1', '--b']);
    expect(nodeFlagsOf('node dist/src/main.js serve')).toEqual([]);
    expect(nodeFlagsOf('tsx src/main.ts serve')).toBeUndefined();
  });
});
