// `npm run bench:nodes` (issue 12, "Many nodes"): one node and two nodes of one deployment on PostgreSQL
// + Redis, side by side. Both nodes run the build as `npm start` runs it, share the database, Redis and
// the secret, and are reached the way a load balancer reaches them: at their own ports, with the site's
// origin in Host. One node gets all connections; then each of two nodes gets half of them at once, and
// their rates are added. On a 2-core box the second node adds no CPU (the load generator and PostgreSQL
// share the same two cores), so the point is what it shows: the same requests, answered by either node,
// with nothing kept per node that would stop a third node on a machine of its own from adding capacity.
import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { postgresBenchDatabase, startDeployedServer } from './harness.js';
import { CONNECTIONS, type Figures, load, memberTokens, refreshGrant, SECONDS, userinfo } from './scenarios.js';

const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

const database = await postgresBenchDatabase('schoolgate_nodes');
const env = { DATABASE_URL: database.url, REDIS_URL: REDIS, SCHOOLGATE_SECRET: randomBytes(32).toString('base64url') };
const first = await startDeployedServer(env);
const second = await startDeployedServer(env, [], ['serve']);
const site = new URL(first.origin);

/** The same request sent to a node's own port, naming the site in Host (as a load balancer forwards it). */
function via(node: { origin: string }, options: autocannon.Options): autocannon.Options {
  const url = new URL(options.url);
  url.host = new URL(node.origin).host;
  return { ...options, url: url.href, headers: { ...options.headers, host: site.host } };
}

const scenarios = [
  {
    name: 'userinfo',
    options: async () => userinfo(first.origin, (await memberTokens(first.origin, 'openid profile email')).access_token),
  },
  // Each node's load generator takes tokens from a pool of its own (a token rotates at whichever node gets it).
  { name: 'refresh grant', options: () => refreshGrant(first.origin) },
];

const total = (figures: Figures[]) => ({
  rps: figures.reduce((sum, f) => sum + f.rps, 0),
  p99: Math.max(...figures.map((f) => f.p99)),
  non2xx: figures.reduce((sum, f) => sum + f.non2xx, 0),
});
const rows: string[] = [];
for (const scenario of scenarios) {
  const one = await load(via(first, await scenario.options()));
  const [a, b] = [via(first, await scenario.options()), via(second, await scenario.options())];
  const half = Math.max(1, Math.floor(CONNECTIONS / 2));
  const two = total(await Promise.all([load({ ...a, connections: half }), load({ ...b, connections: half })]));
  rows.push(
    `${scenario.name.padEnd(14)} one node ${one.rps.toFixed(0).padStart(6)} req/s p99 ${one.p99} ms | two nodes ${two.rps.toFixed(0).padStart(6)} req/s p99 ${two.p99} ms | ` +
      `${((two.rps / one.rps) * 100).toFixed(0)}% of one node; non-2xx ${one.non2xx + two.non2xx}`,
  );
  console.log(rows.at(-1));
}
console.log(
  `\npostgres + Redis, ${SECONDS} s per run, ${CONNECTIONS} connections in all, load generator and PostgreSQL on the same 2 cores\n${rows.join('\n')}`,
);
await second.stop();
await first.stop();
await database.drop();
