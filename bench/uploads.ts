// Uploads do not get in the way (issue 10): the p99 of a discovery request, alone and while 10 MB files
// are uploaded without pause over 4 connections, and the server's peak memory (VmHWM) before and after
// 24 such uploads: a server holding whole files would grow by tens of megabytes. `npm run bench:uploads`.
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { person } from '../test/helpers/person.js';

const FILE_BYTES = 10 * 1024 * 1024;
const UPLOADS = 24;
const PARALLEL = 4;

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

async function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(new URL('./app-server.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`app-server exited with ${code}`)));
  });
  return { child, origin: `http://localhost:${port}` };
}

async function operatorToken(origin: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const redirect = 'http://127.0.0.1:61000/callback';
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-vendor',
    redirect_uri: redirect,
    scope: 'storage:write',
    resource: origin,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await person('owner').authorize(url.href);
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: redirect,
      code_verifier: verifier,
      client_id: 'demo-vendor',
      resource: origin,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A 10 MB PNG-headed body, streamed in 64 KB chunks from one reused buffer (the client holds little). */
function fileBody(): ReadableStream<Uint8Array> {
  const chunk = Buffer.alloc(64 * 1024, 3);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(chunk);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= FILE_BYTES) return controller.close();
      const n = Math.min(chunk.length, FILE_BYTES - sent);
      sent += n;
      controller.enqueue(new Uint8Array(chunk.subarray(0, n)));
    },
  });
}

async function uploadAll(origin: string, token: string, count: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const res = await fetch(`${origin}/api/admin/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png', 'content-length': String(FILE_BYTES) },
        body: fileBody(),
        duplex: 'half',
      } as RequestInit);
      if (res.status !== 201) failed++;
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return failed;
}

const discovery = (origin: string, duration: number) =>
  autocannon({ url: `${origin}/.well-known/openid-configuration`, connections: 10, duration });

const { child, origin } = await startServer();
try {
  const token = await operatorToken(origin);
  // Memory first, with nothing else running: what 24 uploads of 10 MB add to the server's peak.
  await uploadAll(origin, token, 2);
  const before = peakRssMb(child.pid ?? 0);
  const started = performance.now();
  const failed = await uploadAll(origin, token, UPLOADS);
  const seconds = (performance.now() - started) / 1000;
  const after = peakRssMb(child.pid ?? 0);
  const alone = await discovery(origin, 5);
  const [during] = await Promise.all([discovery(origin, 8), uploadAll(origin, token, UPLOADS)]);
  console.log(
    `\n| discovery | req/s | p99 |\n| --- | --- | --- |\n| alone | ${alone.requests.average.toFixed(0)} | ${alone.latency.p99} ms |\n| during uploads of 10 MB (${PARALLEL} at a time) | ${during.requests.average.toFixed(0)} | ${during.latency.p99} ms |`,
  );
  console.log(
    `\nuploads alone: ${UPLOADS - failed}/${UPLOADS} stored (${((UPLOADS * FILE_BYTES) / 1024 / 1024 / seconds).toFixed(0)} MB/s); server peak RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after (+${(after - before).toFixed(0)} MB for ${(UPLOADS * FILE_BYTES) / 1024 / 1024} MB uploaded)`,
  );
} finally {
  child.send('exit');
  await new Promise((resolve) => child.once('exit', resolve));
}
