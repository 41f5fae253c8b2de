// Issue 12: refresh rotations commit in groups on SQLite (storage/group-commit.ts) and one per transaction on
// PostgreSQL; either way `kill -9` in the middle of rotations must lose no rotation a client was answered
// for and bring back no token that was used. The server runs as its own process (`serve --demo`), rotations
// run on many lanes at once, the process is killed without warning, and the store is read directly.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKey } from '../../src/oauth/tokens/token-format.js';
import { openStore } from '../../src/storage/connect.js';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { pkcePair } from '../helpers/token-flow.js';
import { freePort } from '../helpers/free-port.js';

const LANES = 12;
const REDIRECT = 'http://127.0.0.1:8976/callback';

function startServe(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on')) resolve(child);
    });
    child.stderr?.resume();
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${seen.slice(-400)}`)));
  });
}

async function refresh(origin: string, token: string): Promise<Response> {
  return fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: 'academy-member-web',
      client_secret: 'academy-member-secret',
    }),
  });
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`kill -9 during refresh rotations (${dialect})`, () => {
    let database: { url: string; cleanup: () => Promise<void> };
    let dir: string;
    let env: Record<string, string>;
    let origin: string;
    let child: ChildProcess | undefined;

    beforeAll(async () => {
      database = await freshDatabaseUrl(dialect);
      dir = mkdtempSync(join(tmpdir(), 'schoolgate-crash-'));
      const config = join(dir, 'platform.json');
      // No grace window: a used token is then refused outright, which is what the restart checks.
      writeFileSync(
        config,
        JSON.stringify({
          lifetimes: { refresh_grace: 0 },
          limits: { client_rate_per_minute: { confidential: 1_000_000, public: 1_000_000 } },
        }),
      );
      const port = await freePort();
      origin = `http://localhost:${port}`;
      env = {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        SCHOOLGATE_SECRET: randomBytes(32).toString('base64url'),
        SCHOOLGATE_CONFIG: config,
        LOG_LEVEL: 'warn',
      };
      child = await startServe(env);
    }, 60_000);
    afterAll(async () => {
      child?.kill('SIGKILL');
      await database?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('loses no rotation a client was answered for and revives no used token', async () => {
      const who = person('student');
      const lanes: string[] = [];
      for (let i = 0; i < LANES; i++) {
        const { verifier, challenge } = pkcePair();
        const url = new URL(`${origin}/oauth/authorize`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: 'academy-member-web',
          redirect_uri: REDIRECT,
          scope: 'openid account:read',
          resource: origin,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).toString();
        const callback = await who.authorize(url.href);
        const res = await fetch(`${origin}/api/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: callback.searchParams.get('code') ?? '',
            redirect_uri: REDIRECT,
            code_verifier: verifier,
            client_id: 'academy-member-web',
            client_secret: 'academy-member-secret',
            resource: origin,
          }),
        });
        lanes.push(((await res.json()) as { refresh_token: string }).refresh_token);
      }

      // Every answered rotation: the token used and the token received.
      const answered: Array<{ used: string; received: string }> = [];
      let killed = false;
      const runLane = async (lane: number) => {
        while (!killed) {
          const used = lanes[lane] as string;
          let res: Response;
          try {
            res = await refresh(origin, used);
          } catch {
            return; // the server is gone
          }
          if (res.status !== 200) throw new Error(`rotation refused: ${res.status} ${await res.text()}`);
          const received = ((await res.json()) as { refresh_token: string }).refresh_token;
          answered.push({ used, received });
          lanes[lane] = received;
        }
      };
      const running = Promise.all(lanes.map((_, i) => runLane(i)));
      // Killed once the rotations are well under way (three rounds' worth answered), however slow the box
      // is under the rest of the suite: a fixed 600 ms once saw only the first round answered.
      const deadline = Date.now() + 10_000;
      while (answered.length < LANES * 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      killed = true;
      child?.kill('SIGKILL');
      await running;
      const gone = child;
      await new Promise<void>((resolve) =>
        gone?.exitCode !== null || gone?.signalCode !== null ? resolve() : gone?.once('exit', () => resolve()),
      );
      expect(answered.length).toBeGreaterThan(LANES);

      const store = openStore(database.url);
      try {
        const hashes = (list: string[]) => list.map((t) => tokenKey(t));
        const rows = await store.db
          .selectFrom('refresh_tokens')
          .select(['token_hash', 'rotated_at', 'revoked_at'])
          .where('token_hash', 'in', [...hashes(answered.map((a) => a.used)), ...hashes(answered.map((a) => a.received))])
          .execute();
        const byHash = new Map(rows.map((r) => [r.token_hash, r]));
        for (const { used, received } of answered) {
          // Lost: a token a client holds that the store does not know.
          expect(byHash.get(tokenKey(received)), 'an answered rotation was lost').toBeDefined();
          // Revived: a used token that the store would rotate again.
          expect(byHash.get(tokenKey(used))?.rotated_at, 'a used token is not marked rotated').not.toBeNull();
        }
      } finally {
        await store.close();
      }

      // After a restart the same holds through the API: a used token is refused.
      child = await startServe(env);
      const first = answered[0]?.used as string;
      const again = await refresh(origin, first);
      expect(again.status).toBe(400);
      expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
    }, 90_000);
  });
}
