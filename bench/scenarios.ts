// The load generator's side of the benchmarks that more than one script runs: the autocannon run, and the
// UserInfo and refresh-grant requests as `npm run bench` and `npm run bench:scale` both measure them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { person } from '../test/helpers/person.js';
import { tokensFromFlow } from './harness.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface Figures {
  rps: number;
  p99: number;
  non2xx: number;
  /** The server process's CPU time (user + system, all its threads) per answered request, in µs; where /proc has it. */
  cpuMicros?: number;
}

/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time so far in ticks (Linux /proc), or undefined where there is no /proc. */
function cpuTicks(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14th, stime 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * Runs autocannon; given the server's pid, also what each request cost the server in CPU. On a box
 * the load generator shares, the rate moves with the box and the other processes, while the server's
 * own CPU per request follows the work it does: compare changes by that.
 */
export async function load(opts: autocannon.Options, serverPid?: number): Promise<Figures> {
  const before = serverPid === undefined ? undefined : cpuTicks(serverPid);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts });
  const after = serverPid === undefined ? undefined : cpuTicks(serverPid);
  const figures: Figures = { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
  if (before !== undefined && after !== undefined && result.requests.total > 0)
    figures.cpuMicros = ((after - before) * 1e6) / CLOCK_TICKS / result.requests.total;
  return figures;
}

/** The demo's confidential web app of the Academy (CONTRACT 3), through which the benchmarks sign in. */
export const MEMBER_WEB = {
  clientId: 'academy-member-web',
  secret: 'academy-member-secret',
  redirectUri: 'http://127.0.0.1:8976/callback',
};

const student = person('student');

/** Tokens of the demo student for the member web app, from the real authorization code flow. */
export function memberTokens(origin: string, scope: string): Promise<{ access_token: string; refresh_token: string }> {
  return tokensFromFlow(origin, { ...MEMBER_WEB, scope, who: student });
}

export function userinfo(origin: string, accessToken: string): autocannon.Options {
  return { url: `${origin}/api/oauth/userinfo`, headers: { authorization: `Bearer ${accessToken}` } };
}

/**
 * The refresh grant, every request a real rotation (never a replay): a pool of live refresh tokens, each
 * request takes one and its answer puts the rotated one back. Autocannon resets a request's context after
 * each use, which is why the pool lives here; twice the connections leaves a spare for each.
 */
export async function refreshGrant(origin: string): Promise<autocannon.Options> {
  const pool: string[] = [];
  for (let i = 0; i < CONNECTIONS * 2; i++) pool.push((await memberTokens(origin, 'openid account:read')).refresh_token);
  return {
    url: `${origin}/api/oauth/token`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: pool.shift() ?? '',
            client_id: MEMBER_WEB.clientId,
            client_secret: MEMBER_WEB.secret,
          }).toString(),
        }),
        onResponse: (status, body) => {
          if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
        },
      },
    ],
  };
}
