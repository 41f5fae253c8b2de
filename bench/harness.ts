// What the benchmarks share: the application in its own process, and tokens from the real authorization
// code flow (a person signs in and allows, PKCE, the code exchanged at the token endpoint).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { freePort } from '../test/helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Person } from '../test/helpers/person.js';

export { freePort };

/**
 * Node flags for every server the benchmarks start, to compare runtime settings (`BENCH_NODE_FLAGS`, e.g.
 * "--max-semi-space-size=32"); none by default, as `npm start` runs the server.
 */
export const BENCH_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** bench/app-server.ts in a child process; `env` picks its database and Redis, `execArgv` adds profilers. */
export async function startAppServer(
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(new URL('./app-server.ts', import.meta.url)), {
    execArgv: [...BENCH_NODE_FLAGS, '--import', 'tsx', ...execArgv],
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`app-server exited with ${code}`)));
  });
  return { child, origin: `http://localhost:${port}` };
}

/**
 * The application as a deployment runs it (issue 12): the compiled build, `serve --demo` in its own
 * process, default logging, a fresh SQLite file (or the DATABASE_URL given in `env`), and a platform config that lifts
 * the rate budgets (the benchmark is one address sending hundreds of thousands of requests). `nodeArgs`
 * adds profilers; `serveArgs` starts a further node of an existing deployment (`serve` without `--demo`).
 * Answers once the server printed that it listens.
 */
export async function startDeployedServer(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  serveArgs: string[] = ['serve', '--demo'],
): Promise<{ child: ChildProcess; origin: string; stop: () => Promise<void> }> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!deployedBuild) deployedBuild = buildOnce(root);
  await deployedBuild;
  const dir = mkdtempSync(join(tmpdir(), 'schoolgate-bench-'));
  const configPath = join(dir, 'platform.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      limits: {
        oauth_rate_per_minute: 10_000_000,
        client_rate_per_minute: { confidential: 100_000_000, public: 100_000_000 },
        operator_rate_per_minute: 100_000_000,
        sign_in_rate_per_minute: 100_000,
      },
      janitor: { interval_seconds: 0 },
    }),
  );
  const port = await freePort();
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...nodeArgs, 'dist/src/main.js', ...serveArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
      SCHOOLGATE_SECRET: randomBytes(32).toString('base64url'),
      SCHOOLGATE_CONFIG: configPath,
      ...env,
    },
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${seen.slice(-500)}`)));
  });
  // Keep reading its output (log lines) so the pipe never fills and blocks the server.
  child.stdout?.resume();
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { child, origin: `http://localhost:${port}`, stop };
}

let deployedBuild: Promise<void> | undefined;

function buildOnce(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tsc = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    tsc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the build failed (${code})`))));
  });
}

/** A fresh PostgreSQL database for one benchmark (`prefix_<time>`), and its removal. */
export async function postgresBenchDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

const POSTGRES_ADMIN = process.env.SCHOOLGATE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface FlowOptions {
  clientId: string;
  redirectUri: string;
  scope: string;
  who: Person;
  /** For confidential clients (client_secret_post). */
  secret?: string;
}

export async function tokensFromFlow(origin: string, options: FlowOptions): Promise<{ access_token: string; refresh_token: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope,
    resource: origin,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await options.who.authorize(url.href);
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? '',
    redirect_uri: options.redirectUri,
    code_verifier: verifier,
    client_id: options.clientId,
    resource: origin,
  };
  if (options.secret) form.client_secret = options.secret;
  const res = await fetch(`${origin}/api/oauth/token`, { method: 'POST', body: new URLSearchParams(form) });
  if (!res.ok) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string };
}
