// `npm run bench:scale` (issue 12, "10,000 sites in one deployment"): start time and memory of `serve`
// over a database holding 2 sites and one holding 10,000 (each with its signing keys), measured the same
// way: the build started as a deployment starts it, time until it prints that it listens, and its
// resident memory after discovery and JWKS requests to 200 of its sites.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/kernel/clock.js';
import { initialiseSiteKeys, signingKeyEncryptionKey } from '../src/keys/signing-keys.js';
import { insertSite } from '../src/sites/sites.repository.js';
import { openStore } from '../src/storage/connect.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { BENCH_NODE_FLAGS, freePort } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SITE_COUNTS = (process.env.BENCH_SITES ?? '2,10000').split(',').map(Number);
const VISITED = 200;

async function build(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const tsc = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    tsc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build failed (${code})`))));
  });
}

/** A database with `count` sites on origins http://s<i>.localhost:<port>, each with its keys. */
async function prepare(count: number, port: number, secret: string): Promise<{ dir: string; url: string; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'schoolgate-scale-'));
  const file = join(dir, 'scale.db');
  const url = `sqlite:${file}`;
  const store = openStore(url);
  await migrateToLatest(store);
  const masterKey = signingKeyEncryptionKey(secret);
  for (let i = 0; i < count; i += 200) {
    await store.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(count, i + 200); j++) {
        const site = await insertSite(
          trx,
          { slug: `school-${j}`, name: `School ${j}`, origin: `http://s${j}.localhost:${port}`, variant: j % 2 ? 'B' : 'A' },
          systemClock,
        );
        await initialiseSiteKeys(trx, site.id, masterKey, systemClock);
      }
    });
  }
  await store.close();
  return { dir, url, file };
}

/** GET with a Host header of our choosing (fetch does not let a caller set Host). */
function get(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Resident memory, the part of it that is the process's own (RssAnon), and of the file-backed rest the pages
 * of the SQLite file mapped for reading (mmap_size), which the kernel shares and reclaims like any file cache
 * and which grow with the pages read, not with what the process keeps (the rest is Node's own code).
 */
interface Resident {
  rss: number;
  anon: number;
  /** Of the rest, the pages of the database file itself that are mapped in (the other mappings are Node's code). */
  databaseFile: number;
}

/** The resident pages of mappings of `file` (its memory map), from /proc/<pid>/smaps. */
function mappedOf(pid: number, file: string): number {
  let current = '';
  let kib = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (mapping) current = mapping[1] ?? '';
    else if (current === file && line.startsWith('Rss:')) kib += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return kib * 1024;
}

function rssOf(pid: number, databaseFile: string): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), databaseFile: mappedOf(pid, databaseFile) };
}

const megabytes = (bytes: number) => (bytes / 1048576).toFixed(1).padStart(6);
const mb = (r: Resident) => `${megabytes(r.rss)} MB (own ${megabytes(r.anon)} MB, database file ${megabytes(r.databaseFile)} MB)`;

async function measure(count: number): Promise<{ startMs: number; rssAtStart: Resident; rss: Resident; visitMs: number }> {
  const port = await freePort();
  const secret = randomBytes(32).toString('base64url');
  const { dir, url, file } = await prepare(count, port, secret);
  const started = performance.now();
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, 'dist/src/main.js', 'serve'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, SCHOOLGATE_SECRET: secret },
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const startMs = performance.now() - started;
  child.stdout.resume();
  const rssAtStart = rssOf(child.pid as number, file);
  const visitStarted = performance.now();
  try {
    for (let v = 0; v < Math.min(VISITED, count); v++) {
      const i = Math.floor((v * count) / Math.min(VISITED, count));
      for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
        const status = await get(port, path, `s${i}.localhost:${port}`);
        if (status !== 200) throw new Error(`site ${i} ${path}: ${status}`);
      }
    }
    const visitMs = performance.now() - visitStarted;
    return { startMs, rssAtStart, rss: rssOf(child.pid as number, file), visitMs };
  } finally {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    rmSync(dir, { recursive: true, force: true });
  }
}

await build();
const rows: string[] = [];
for (const count of SITE_COUNTS) {
  const m = await measure(count);
  rows.push(
    `${String(count).padStart(6)} sites: listening after ${m.startMs.toFixed(0).padStart(5)} ms with RSS ${mb(m.rssAtStart)}; RSS ${mb(m.rss)} after ${Math.min(VISITED, count) * 2} requests to ${Math.min(VISITED, count)} sites (${(m.visitMs / (Math.min(VISITED, count) * 2)).toFixed(2)} ms each)`,
  );
  console.log(rows.at(-1));
}
console.log(`\n${rows.join('\n')}`);
