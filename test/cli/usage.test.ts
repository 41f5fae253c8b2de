// CONTRACT 1 and 2: help, usage errors (exit 2), configuration and database failures (exit 1).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/run.js';
import { cli, cliEnv } from './cli-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'schoolgate-cli-usage-'));
const env = cliEnv(`sqlite:${join(dir, 'usage.db')}`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schoolgate usage', () => {
  it('--help lists every command and the SCHOOLGATE_SECRET requirement, exit 0', async () => {
    const result = await cli(['--help'], env);
    expect(result.code).toBe(0);
    for (const name of [
      'serve',
      'migrate',
      'seed',
      'site create',
      'site list',
      'user create',
      'role grant',
      'role revoke',
      'client create',
      'client list',
      'keys rotate',
      'audit',
    ]) {
      expect(result.stdout).toContain(`  ${name} `);
    }
    expect(result.stdout).toContain('SCHOOLGATE_SECRET');
  });

  it('every command answers --help with its usage and exit 0, without touching the database', async () => {
    for (const command of COMMANDS) {
      const result = await cli([...command.name.split(' '), '--help'], {});
      expect(result.code, command.name).toBe(0);
      expect(result.stdout, command.name).toContain(`Usage: schoolgate ${command.name}`);
      const viaHelp = await cli(['help', ...command.name.split(' ')], {});
      expect(viaHelp.stdout, command.name).toBe(result.stdout);
    }
  });

  it('no command at all is a usage error: the command list on stderr, exit 2', async () => {
    const result = await cli([], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Commands:');
  });

  it('an unknown command, or an unknown subcommand, is a usage error (exit 2)', async () => {
    const unknown = await cli(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    const sub = await cli(['site', 'delete'], env);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/unknown command "site delete"/);
    const bare = await cli(['site'], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/site create/);
  });

  it('an unknown option, a missing value or a missing required option is a usage error pointing to --help (exit 2)', async () => {
    const unknownOption = await cli(['site', 'list', '--verbose'], env);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/--verbose/);
    expect(unknownOption.stderr).toContain('schoolgate site list --help');
    const missingValue = await cli(['client', 'list', '--site'], env);
    expect(missingValue.code).toBe(2);
    const missingOption = await cli(['keys', 'rotate'], env);
    expect(missingOption.code).toBe(2);
    expect(missingOption.stderr).toMatch(/--site is required/);
    const badVariant = await cli(['site', 'create', '--slug', 'x', '--name', 'X', '--origin', 'https://x.example', '--variant', 'C'], env);
    expect(badVariant.code).toBe(2);
    expect(badVariant.stderr).toMatch(/--variant must be A or B/);
  });

  it('seed without --demo is a usage error (exit 2)', async () => {
    const result = await cli(['seed'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--demo/);
  });

  it('outside demo mode a missing SCHOOLGATE_SECRET fails with a clear message and no stack trace (exit 1)', async () => {
    const { SCHOOLGATE_SECRET: _unused, ...withoutSecret } = env;
    for (const argv of [['site', 'list'], ['migrate'], ['keys', 'rotate', '--site', 'north'], ['serve']]) {
      const result = await cli(argv, withoutSecret);
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/SCHOOLGATE_SECRET: required/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a SCHOOLGATE_SECRET shorter than 32 characters is refused (exit 1)', async () => {
    const result = await cli(['site', 'list'], { ...env, SCHOOLGATE_SECRET: 'short' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/SCHOOLGATE_SECRET: must be at least 32 characters/);
  });

  it('a REDIS_PREFIX that would not read plainly as a Redis name part is refused (exit 1)', async () => {
    for (const prefix of ['has space', ':leading-colon', 'x'.repeat(65)]) {
      const result = await cli(['site', 'list'], { ...env, REDIS_PREFIX: prefix });
      expect(result.code, prefix).toBe(1);
      expect(result.stderr).toMatch(/REDIS_PREFIX: must be 1-64 letters/);
    }
  });

  it('an unreachable database fails with its reason and exit 1', async () => {
    const result = await cli(['site', 'list'], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^schoolgate site list failed: .*(ECONNREFUSED|connect)/);
    // Nothing ran, so no migration is named as the one that failed.
    expect(result.stderr).toMatch(/^schoolgate site list failed: the database schema cannot be brought up to date: /);
  });

  it('serve --demo refuses PORT=0, since the demo origins name the port (exit 1)', async () => {
    const result = await cli(['serve', '--demo'], { ...env, PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT=0/);
  });
});
