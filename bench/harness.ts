// What the benchmarks share: the application in its own process, and tokens from the real authorization
// code flow (a person signs in and allows, PKCE, the code exchanged at the token endpoint).
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Person } from '../test/helpers/person.js';

/** bench/app-server.ts in a child process; `env` picks its database and Redis, `execArgv` adds profilers. */
export async function startAppServer(
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(new URL('./app-server.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`app-server exited with ${code}`)));
  });
  return { child, origin: `http://localhost:${port}` };
}

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
