// Issue 8, "Operations", on the real executable (`schoolgate serve --demo` in its own process, request
// logging on): every answer carries a request id, a client cannot choose it without a trusted proxy, the
// logs name it; a full flow leaves no password, code, verifier, token, secret or cookie in the logs; and
// SIGTERM stops accepting, lets a request in flight finish, and exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../helpers/demo-server.js';
import { DEMO, person } from '../helpers/person.js';
import {
  DEMO_CLIENTS,
  exchangeCode,
  expectTokens,
  getCode,
  introspect,
  postForm,
  refresh,
  revoke,
  userInfo,
} from '../helpers/token-flow.js';
import { freePort } from '../helpers/free-port.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Sends the head of a POST now and its body only when asked: a request that stays in flight. */
function slowRequest(port: number, host: string): { finish(): void; answer: Promise<string> } {
  const body = 'grant_type=refresh_token&refresh_token=sgr_slow&client_id=academy-member-app';
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  socket.write(
    `POST /api/oauth/token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  return { finish: () => socket.write(body), answer };
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

describe('request ids, log hygiene and graceful shutdown of `schoolgate serve`', () => {
  let child: ChildProcess;
  let output = '';
  let port = 0;
  let metricsPort = 0;
  let dir = '';
  let origin = '';
  let exit: Promise<number | null>;

  beforeAll(async () => {
    port = await freePort();
    metricsPort = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'schoolgate-ops-'));
    origin = `http://localhost:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: `sqlite:${join(dir, 'ops.db')}`,
        SCHOOLGATE_SECRET: randomBytes(32).toString('base64url'),
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        LOG_REQUESTS: '1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    const started = Date.now();
    while (!output.includes('listening on')) {
      if (Date.now() - started > 30_000) throw new Error(`the server did not start:\n${output}`);
      if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with a generated X-Request-Id, ignores one sent without a trusted proxy, and logs it', async () => {
    const res = await fetch(`${origin}/.well-known/openid-configuration`, { headers: { 'x-request-id': 'chosen-by-client' } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(id).not.toBe('chosen-by-client');
    await expect.poll(() => output.includes(`"reqId":"${id}"`)).toBe(true);
  });

  it('keeps every password, code, verifier, token, client secret and cookie of a full flow out of the logs', async () => {
    // The demo summary printed at start names the demo passwords and secret on purpose; the logs start after it.
    const logStart = output.length;
    const server = { academy: origin, studio: `http://127.0.0.1:${port}` } as DemoServer;
    const client = DEMO_CLIENTS.academyWeb;
    const who = person('student');
    const issued = await getCode(server, client, { who, scope: 'openid profile email account:read' });
    const tokens = expectTokens(await exchangeCode(issued));
    const refreshed = expectTokens(await refresh(server, client, tokens.refresh_token));
    expect((await userInfo(origin, refreshed.access_token)).status).toBe(200);
    expect((await introspect(origin, refreshed.access_token, { client_id: client.clientId, client_secret: client.secret })).status).toBe(
      200,
    );
    // Clients that put secrets where they do not belong: in the query string.
    await fetch(`${origin}/api/oauth/userinfo?access_token=${refreshed.access_token}`);
    await fetch(`${origin}/oauth/authorize?code=${issued.code}&client_secret=${client.secret}&password=${DEMO.student.password}`);
    await postForm(
      `${origin}/api/oauth/token`,
      { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token },
      {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
      },
    );
    expect((await revoke(server, client, refreshed.refresh_token)).status).toBe(200);
    const page = await who.request(`${origin}/oauth/sign-out`);
    const cookies = page.headers.getSetCookie().map((line) => line.split(';')[0]?.split('=')[1] ?? '');

    // The request log lines are there: the check below reads real lines, not an empty log.
    await expect.poll(() => (output.slice(logStart).match(/"url":"\/api\/oauth\/token"/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(output.slice(logStart)).toContain('REDACTED');
    const secrets: Record<string, string> = {
      password: DEMO.student.password,
      'authorization code': issued.code,
      'code verifier': issued.verifier,
      'access token': tokens.access_token,
      'refresh token': tokens.refresh_token,
      'rotated access token': refreshed.access_token,
      'rotated refresh token': refreshed.refresh_token,
      'client secret': client.secret,
      'basic credentials': Buffer.from(`${client.clientId}:${client.secret}`).toString('base64'),
      ...Object.fromEntries(cookies.filter((c) => c.length >= 20).map((c, i) => [`cookie ${i}`, c])),
    };
    const logs = output.slice(logStart);
    for (const [what, secret] of Object.entries(secrets)) expect(logs.includes(secret), `${what} in the logs`).toBe(false);
  });

  it('serves Prometheus metrics on METRICS_PORT without a token, and not on the main listener', async () => {
    expect(output).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`);
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^schoolgate_http_requests_total\{route="\/api\/oauth\/token",method="POST",status="200"\} [1-9]/m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    expect((await fetch(`${origin}/metrics`)).status).toBe(404);
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const inFlight = slowRequest(port, `localhost:${port}`);
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    await expect.poll(() => output.includes('Shutting down')).toBe(true);
    await expect.poll(() => connectionRefused(port)).toBe(true);
    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('invalid_grant');
    expect(await exit).toBe(0);
    expect(output).toContain('Stopped.');
    expect(await connectionRefused(metricsPort)).toBe(true);
  });
});
