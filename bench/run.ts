// Benchmarks (autocannon), each scenario side by side with a bare Fastify endpoint in the same run (and,
// for a POST scenario, with the bare endpoint taking the same body).
// `npm run bench` measures SQLite and PostgreSQL with Redis (a fresh database, dropped after), in turns, and
// prints requests per second, p99 latency, the server's CPU per request (from /proc, where there is one),
// the share of the bare endpoint's rate and PostgreSQL's rate as a share of SQLite's. The application
// runs as a deployment runs it (`serve --demo` from the build, its own process, default logging).
// BENCH_STORE=sqlite or =postgres measures one store; BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS and
// BENCH_ONLY (scenario names, comma-separated) adjust the load.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { postgresBenchDatabase, startDeployedServer } from './harness.js';
import { CONNECTIONS, type Figures, load, MEMBER_WEB, memberTokens, refreshGrant, SECONDS, userinfo } from './scenarios.js';

const ONLY = process.env.BENCH_ONLY?.split(',');
const STORES = (process.env.BENCH_STORE ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

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

/** A stateless MCP tools/call (no initialize needed), as the Streamable HTTP transport sends it. */
function mcpToolCall(origin: string, name: string, args: Record<string, unknown>, accessToken?: string): autocannon.Options {
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

type Scenario = { name: string; bar: number; options: (origin: string, accessToken: string) => Promise<autocannon.Options> };

/**
 * What a scenario's request costs the bare endpoint when only the taking of its body is kept: the same
 * method, content type and body to `POST /bare`. Reported beside the share (the bars stay shares of
 * `GET /bare`), since reading and parsing a body costs a bare Fastify endpoint about half again a GET.
 * The refresh grant's bodies are set per request, so its twin sends one of the same shape.
 */
function barePostTwin(port: number, options: autocannon.Options): autocannon.Options | undefined {
  if (options.method !== 'POST') return undefined;
  const headers = { 'content-type': String((options.headers as Record<string, string>)['content-type']) };
  const body =
    typeof options.body === 'string'
      ? options.body
      : new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'r'.repeat(43),
          client_id: MEMBER_WEB.clientId,
          client_secret: MEMBER_WEB.secret,
        }).toString();
  return { url: `http://127.0.0.1:${port}/bare`, method: 'POST', headers, body };
}
const scenarios: Scenario[] = [
  { name: 'discovery', bar: 0.6, options: async (origin) => ({ url: `${origin}/.well-known/openid-configuration` }) },
  { name: 'userinfo', bar: 1 / 2, options: async (origin, accessToken) => userinfo(origin, accessToken) },
  {
    name: 'introspection',
    bar: 1 / 2,
    options: async (origin, accessToken) => ({
      url: `${origin}/api/oauth/introspect`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: accessToken, client_id: MEMBER_WEB.clientId, client_secret: MEMBER_WEB.secret }).toString(),
    }),
  },
  { name: 'refresh grant', bar: 1 / 5, options: (origin) => refreshGrant(origin) },
  {
    name: 'graphql viewer',
    bar: 1 / 4,
    options: async (origin, accessToken) => ({
      url: `${origin}/member/graphql`,
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          '{ viewer { enrolledCourses(first: 20) { nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } } } }',
      }),
    }),
  },
  {
    name: 'mcp anonymous tools/call',
    bar: 1 / 5,
    options: (origin) => checkedToolCall(mcpToolCall(origin, 'search_courses', { query: 'design' })),
  },
  {
    name: 'mcp member tools/call',
    bar: 1 / 5,
    options: (origin, accessToken) => checkedToolCall(mcpToolCall(origin, 'list_my_enrollments', {}, accessToken)),
  },
];
const measuredScenarios = scenarios.filter((scenario) => !ONLY || ONLY.includes(scenario.name));

const bare = await start('./bare-server.ts');
interface Deployment {
  store: 'sqlite' | 'postgres';
  origin: string;
  /** The server's process, whose CPU per request each run reports. */
  pid: number | undefined;
  accessToken: string;
  stop(): Promise<void>;
}
const deployments: Deployment[] = [];
for (const store of STORES) {
  const postgres = store === 'postgres' ? await postgresBenchDatabase('schoolgate_bench') : undefined;
  // The application as `npm start` runs it: the build, its own process, default logging (issue 12).
  const app = await startDeployedServer(
    postgres ? { DATABASE_URL: postgres.url, REDIS_URL: REDIS } : {},
    PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  );
  const member = await memberTokens(app.origin, 'openid profile email account:read');
  deployments.push({
    store,
    origin: app.origin,
    pid: app.child.pid,
    accessToken: member.access_token,
    // SIGTERM is the clean shutdown of `serve`, which lets a profiler write its output.
    stop: async () => {
      await app.stop();
      await postgres?.drop();
    },
  });
}

// Both stores' servers run side by side and are measured in turns, scenario by scenario (bare, SQLite,
// PostgreSQL; BENCH_ROUNDS times), so that the box's drift during the run falls on all of them alike.
const mean = (runs: Figures[]): Figures => {
  const figures: Figures = {
    rps: runs.reduce((sum, f) => sum + f.rps, 0) / runs.length,
    p99: Math.max(...runs.map((f) => f.p99)),
    non2xx: runs.reduce((sum, f) => sum + f.non2xx, 0),
  };
  const cpu = runs.map((f) => f.cpuMicros).filter((c) => c !== undefined);
  if (cpu.length === runs.length) figures.cpuMicros = cpu.reduce((sum, c) => sum + c, 0) / cpu.length;
  return figures;
};
/** The server's CPU per request, where /proc gave it. */
const cpuColumn = (f: Figures) => (f.cpuMicros === undefined ? '' : `  cpu ${f.cpuMicros.toFixed(0).padStart(4)} µs/req`);
const rows: string[] = [];
for (const scenario of measuredScenarios) {
  const options = await Promise.all(deployments.map((d) => scenario.options(d.origin, d.accessToken)));
  const twin = options[0] && barePostTwin(bare.port, options[0]);
  const runs = { bare: [] as Figures[], barePost: [] as Figures[], stores: deployments.map(() => [] as Figures[]) };
  for (let round = 0; round < ROUNDS; round++) {
    runs.bare.push(await load({ url: `http://127.0.0.1:${bare.port}/bare` }, bare.child.pid));
    if (twin) runs.barePost.push(await load(twin, bare.child.pid));
    for (const [i, opts] of options.entries()) runs.stores[i]?.push(await load(opts, deployments[i]?.pid));
  }
  const base = mean(runs.bare);
  const basePost = twin ? mean(runs.barePost) : undefined;
  const byStore = new Map(deployments.map((d, i) => [d.store, mean(runs.stores[i] ?? [])]));
  for (const [store, measured] of byStore) {
    const share = measured.rps / base.rps;
    const sqlite = byStore.get('sqlite');
    const ofSqlite = store === 'postgres' && sqlite ? `  | ${((measured.rps / sqlite.rps) * 100).toFixed(0)}% of SQLite (goal 60%)` : '';
    const ofPost = basePost
      ? `  | bare POST ${basePost.rps.toFixed(0).padStart(7)} req/s${cpuColumn(basePost)}, ${((measured.rps / basePost.rps) * 100).toFixed(1)}% of it`
      : '';
    rows.push(
      `${(store === 'postgres' ? 'pg+redis' : 'sqlite').padEnd(8)} ${scenario.name.padEnd(24)} ${measured.rps.toFixed(0).padStart(7)} req/s  p99 ${String(measured.p99).padStart(4)} ms  non-2xx ${String(measured.non2xx).padStart(5)}${cpuColumn(measured)}  | bare ${base.rps.toFixed(0).padStart(7)} req/s${cpuColumn(base)}  | share ${(share * 100).toFixed(1)}% (bar ${(scenario.bar * 100).toFixed(0)}%) ${share >= scenario.bar ? 'meets' : 'BELOW'}${ofPost}${ofSqlite}`,
    );
    console.log(rows.at(-1));
  }
}
console.log(`\n${SECONDS} s per run, ${ROUNDS} round(s), ${CONNECTIONS} connections, load generator on the same box\n${rows.join('\n')}`);
for (const deployment of deployments) await deployment.stop();
bare.child.kill();
