// `npm run bench:scale` (issue 12, "flat at a million tokens"): UserInfo and the refresh grant on a store
// holding 1,000 live access tokens and on one holding 1,000,000 live access tokens in 100,000 refresh
// families. Two deployments run side by side, each started as `npm start` starts it, and are measured in
// turns (small, large, small, large) so that the machine's drift falls on both alike.
// BENCH_STORE=postgres runs both on PostgreSQL (+ Redis); BENCH_TOKENS and BENCH_FAMILIES change the size.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { postgresBenchDatabase, startDeployedServer } from './harness.js';
import { CONNECTIONS, type Figures, load, memberTokens, refreshGrant, SECONDS, userinfo } from './scenarios.js';

const LARGE_TOKENS = Number(process.env.BENCH_TOKENS ?? 1_000_000);
const LARGE_FAMILIES = Number(process.env.BENCH_FAMILIES ?? 100_000);
const SMALL_TOKENS = 1_000;
const SMALL_FAMILIES = 100;
const STORE = process.env.BENCH_STORE === 'postgres' ? 'postgres' : 'sqlite';
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
const HOUR = 3_600_000;

interface Deployment {
  origin: string;
  stop(): Promise<void>;
  /** Stores extra live grants, refresh families and access tokens until the store holds `tokens` and `families`. */
  fill(tokens: number, families: number): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Rows shaped like the demo student's (same site, client, person, scope), with random keys: the shape of
 * a store of tokens minted before their keys began with the minting time (oauth/tokens/token-format.ts), the
 * index's worst case, which the tokens issued during the run join in time order. One refresh token per
 * family (its grant), the access tokens spread over the families.
 */
const fillSql = {
  sqlite: (tokens: number, families: number, now: number) => [
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${families})
     insert into grants (id, site_id, client_id, person_id, scope, resource, created_at)
     select 'scale-' || i, t.site_id, t.client_id, t.person_id, t.scope, t.resource, ${now} from n, (select * from grants limit 1) t`,
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${families})
     insert into refresh_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
     select lower(hex(randomblob(32))), g.site_id, g.id, g.client_id, g.person_id, g.scope, g.resource, ${now}, ${now + 720 * HOUR}
     from n join grants g on g.id = 'scale-' || n.i`,
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${tokens})
     insert into access_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
     select lower(hex(randomblob(32))), g.site_id, g.id, g.client_id, g.person_id, g.scope, g.resource, ${now}, ${now + 24 * HOUR}
     from n join grants g on g.id = 'scale-' || (n.i % ${families} + 1)`,
  ],
  postgres: (tokens: number, families: number, now: number) => [
    `insert into grants (id, site_id, client_id, person_id, scope, resource, created_at)
     select 'scale-' || i, t.site_id, t.client_id, t.person_id, t.scope, t.resource, ${now}
     from generate_series(1, ${families}) i, (select * from grants limit 1) t`,
    `insert into refresh_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
     select md5(random()::text) || md5(random()::text), g.site_id, g.id, g.client_id, g.person_id, g.scope, g.resource, ${now}, ${now + 720 * HOUR}
     from generate_series(1, ${families}) i join grants g on g.id = 'scale-' || i`,
    `insert into access_tokens (token_hash, site_id, grant_id, client_id, person_id, scope, resource, created_at, expires_at)
     select md5(random()::text) || md5(random()::text), g.site_id, g.id, g.client_id, g.person_id, g.scope, g.resource, ${now}, ${now + 24 * HOUR}
     from generate_series(1, ${tokens}) i join grants g on g.id = 'scale-' || (i % ${families} + 1)`,
    'analyze grants',
    'analyze refresh_tokens',
    'analyze access_tokens',
  ],
};

async function deploy(name: string): Promise<Deployment> {
  if (STORE === 'sqlite') {
    const path = join(mkdtempSync(join(tmpdir(), `schoolgate-${name}-`)), 'bench.db');
    const app = await startDeployedServer({ DATABASE_URL: `sqlite:${path}` });
    return {
      ...app,
      async fill(tokens, families) {
        const db = new SQLite(path);
        db.pragma('busy_timeout = 5000');
        const count = (db.prepare('select count(*) as n from access_tokens').get() as { n: number }).n;
        db.transaction(() => {
          for (const statement of fillSql.sqlite(Math.max(0, tokens - count), families, Date.now())) db.exec(statement);
        })();
        db.close();
      },
      drop: async () => {},
    };
  }
  const database = await postgresBenchDatabase(`schoolgate_${name}`);
  const app = await startDeployedServer({ DATABASE_URL: database.url, REDIS_URL: REDIS });
  return {
    ...app,
    async fill(tokens, families) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const count = Number((await client.query<{ n: string }>('select count(*) as n from access_tokens')).rows[0]?.n ?? 0);
      for (const statement of fillSql.postgres(Math.max(0, tokens - count), families, Date.now())) await client.query(statement);
      await client.end();
    },
    drop: database.drop,
  };
}

async function counts(deployment: Deployment, label: string, tokens: number, families: number): Promise<void> {
  const started = performance.now();
  await deployment.fill(tokens, families);
  console.log(
    `${label}: ${tokens.toLocaleString('en')} access tokens, ${families.toLocaleString('en')} refresh families stored (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

const small = await deploy('tokens_small');
const large = await deploy('tokens_large');
// Both are filled before either is measured; the tokens measured come from the real flow afterwards.
await counts(small, 'small store', SMALL_TOKENS, SMALL_FAMILIES);
await counts(large, 'large store', LARGE_TOKENS, LARGE_FAMILIES);

const scenarios = [
  {
    name: 'userinfo',
    options: async (origin: string) => userinfo(origin, (await memberTokens(origin, 'openid profile email')).access_token),
  },
  { name: 'refresh grant', options: refreshGrant },
];
const rows: string[] = [];
for (const scenario of scenarios) {
  const options = { small: await scenario.options(small.origin), large: await scenario.options(large.origin) };
  const runs: { small: Figures[]; large: Figures[] } = { small: [], large: [] };
  for (let turn = 0; turn < 2; turn++) {
    runs.small.push(await load(options.small));
    runs.large.push(await load(options.large));
  }
  const mean = (figures: Figures[]) => figures.reduce((sum, f) => sum + f.rps, 0) / figures.length;
  const worstP99 = (figures: Figures[]) => Math.max(...figures.map((f) => f.p99));
  const failed = [...runs.small, ...runs.large].reduce((sum, f) => sum + f.non2xx, 0);
  const ratio = mean(runs.large) / mean(runs.small);
  rows.push(
    `${scenario.name.padEnd(14)} 1,000 tokens ${mean(runs.small).toFixed(0).padStart(6)} req/s p99 ${worstP99(runs.small)} ms | ` +
      `${LARGE_TOKENS.toLocaleString('en')} tokens ${mean(runs.large).toFixed(0).padStart(6)} req/s p99 ${worstP99(runs.large)} ms | ` +
      `${(ratio * 100).toFixed(0)}% of the small store's rate (goal: at least 80%) ${ratio >= 0.8 ? 'meets' : 'BELOW'}; non-2xx ${failed}`,
  );
  console.log(rows.at(-1));
}
console.log(
  `\n${STORE}${STORE === 'postgres' ? ' + Redis' : ''}, ${SECONDS} s per run, two runs each in turns, ${CONNECTIONS} connections\n${rows.join('\n')}`,
);
for (const deployment of [small, large]) {
  await deployment.stop();
  await deployment.drop();
}
