// Benchmarks (autocannon), each scenario side by side with a bare Fastify endpoint in the same run.
// `npm run bench` prints requests per second, p99 latency and the share of the bare endpoint's rate;
// BENCH_SECONDS and BENCH_CONNECTIONS adjust the load. Servers run in their own processes; the application
// as a deployment runs it (`serve --demo` from the build, default logging).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { postgresBenchDatabase, startDeployedServer } from './harness.js';
import { CONNECTIONS, load, MEMBER_WEB, memberTokens, refreshGrant, SECONDS, userinfo } from './scenarios.js';

const ONLY = process.env.BENCH_ONLY?.split(',');

// BENCH_PROFILE=<dir> writes a V8 CPU profile of the application server into that folder.
const PROFILE_DIR = process.env.BENCH_PROFILE;

function start(script: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const execArgv = ['--import', 'tsx'];
    const child = fork(fileURLToPath(new URL(script, import.meta.url)), { execArgv, stdio: 'inherit' });
    child.once('message', (m) => resolve({ child, port: (m as { port: number }).port }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

// BENCH_STORE=postgres measures PostgreSQL as it is deployed, with Redis (a fresh database, dropped after).
const STORE = process.env.BENCH_STORE === 'postgres' ? 'postgres' : 'sqlite';
const postgres = STORE === 'postgres' ? await postgresBenchDatabase('schoolgate_bench') : undefined;
const bare = await start('./bare-server.ts');
// The application as `npm start` runs it: the build, its own process, default logging (issue 12).
const app = await startDeployedServer(
  postgres ? { DATABASE_URL: postgres.url, REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15' } : {},
  PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
);
const origin = app.origin;
const member = await memberTokens(origin, 'openid profile email account:read');

/** A stateless MCP tools/call (no initialize needed), as the Streamable HTTP transport sends it. */
function mcpToolCall(name: string, args: Record<string, unknown>, accessToken?: string): autocannon.Options {
  return {
    url: `${origin}/mcp`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  };
}

/** Measures only calls that succeed: one call first, refusing an error result. */
async function checkedToolCall(options: autocannon.Options): Promise<autocannon.Options> {
  const res = await fetch(options.url, {
    method: 'POST',
    headers: options.headers as Record<string, string>,
    body: options.body as string,
  });
  const answer = (await res.json()) as { result?: { isError?: boolean }; error?: unknown };
  if (!res.ok || answer.error || !answer.result || answer.result.isError)
    throw new Error(`tool call fails: ${JSON.stringify(answer).slice(0, 300)}`);
  return options;
}

type Scenario = { name: string; bar: number; options: () => Promise<autocannon.Options> };
const scenarios: Scenario[] = [
  {
    name: 'userinfo',
    bar: 1 / 2,
    options: async () => userinfo(origin, member.access_token),
  },
  {
    name: 'introspection',
    bar: 1 / 2,
    options: async () => ({
      url: `${origin}/api/oauth/introspect`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: member.access_token,
        client_id: MEMBER_WEB.clientId,
        client_secret: MEMBER_WEB.secret,
      }).toString(),
    }),
  },
  {
    name: 'refresh grant',
    bar: 1 / 5,
    options: () => refreshGrant(origin),
  },
  {
    name: 'graphql viewer',
    bar: 1 / 4,
    options: async () => ({
      url: `${origin}/member/graphql`,
      method: 'POST',
      headers: { authorization: `Bearer ${member.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          '{ viewer { enrolledCourses(first: 20) { nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } } } }',
      }),
    }),
  },
  {
    name: 'mcp anonymous tools/call',
    bar: 1 / 5,
    options: () => checkedToolCall(mcpToolCall('search_courses', { query: 'design' })),
  },
  {
    name: 'mcp member tools/call',
    bar: 1 / 5,
    options: () => checkedToolCall(mcpToolCall('list_my_enrollments', {}, member.access_token)),
  },
];

const rows: string[] = [];
for (const scenario of scenarios) {
  if (ONLY && !ONLY.includes(scenario.name)) continue;
  const options = await scenario.options();
  const base = await load({ url: `http://127.0.0.1:${bare.port}/bare` });
  const measured = await load(options);
  const share = measured.rps / base.rps;
  rows.push(
    `${scenario.name.padEnd(16)} ${measured.rps.toFixed(0).padStart(7)} req/s  p99 ${String(measured.p99).padStart(4)} ms  non-2xx ${String(measured.non2xx).padStart(5)}  | bare ${base.rps.toFixed(0).padStart(7)} req/s  | share ${(share * 100).toFixed(1)}% (bar ${(scenario.bar * 100).toFixed(0)}%) ${share >= scenario.bar ? 'meets' : 'BELOW'}`,
  );
  console.log(rows.at(-1));
}
console.log(
  `\n${STORE}${postgres ? ' + Redis' : ''}, ${SECONDS} s per run, ${CONNECTIONS} connections, load generator on the same box\n${rows.join('\n')}`,
);
bare.child.kill();
// SIGTERM is the clean shutdown of `serve`, which lets a profiler write its output.
await app.stop();
await postgres?.drop();
