// The AWS SDK is imported by a deployment that keeps its assets in a bucket, and only there: importing it
// cost every start of `serve` and of each CLI command about an eighth of a second (bench/RESULTS.md, forty-third
// session). Checked in a process of its own, since the test runner's process may have loaded it already.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Imports `modules` in a fresh Node process, runs `then`, and answers how many of the SDK's files it has loaded. */
async function sdkFilesLoaded(modules: string[], then = ''): Promise<number> {
  const script = `
    import { createRequire } from 'node:module';
    ${modules.map((m, i) => `const m${i} = await import(${JSON.stringify(new URL(m, `file://${root}/`).href)});`).join('\n')}
    ${then}
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('@aws-sdk'));
    console.log(loaded.length);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
  });
  return Number(stdout.trim().split('\n').at(-1));
}

describe('the AWS SDK is loaded on use', () => {
  it('is not loaded by the server and the CLI when assets are kept in a folder', async () => {
    expect(await sdkFilesLoaded(['src/app.ts', 'src/services.ts', 'src/cli/janitor.ts'])).toBe(0);
  });

  it('is loaded once a store in a bucket is used', async () => {
    const settings = JSON.stringify({
      bucket: 'b',
      prefix: '',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    const use = `await m0.configuredAssetStore({ s3: ${settings}, assetsDir: '' }).remove('0123456789abcdef').catch(() => {});`;
    expect(await sdkFilesLoaded(['src/assets/configured-asset-store.ts'], use)).toBeGreaterThan(0);
  }, 30_000);
});
