// Uploads do not get in the way (issue 10): the p99 of a discovery request, alone and while 10 MB files
// are uploaded without pause over 4 connections, and the server's peak memory (VmHWM) before and after
// 24 such uploads: a server holding whole files would grow by tens of megabytes. `npm run bench:uploads`.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { person } from '../test/helpers/person.js';
import { startAppServer, tokensFromFlow } from './harness.js';

const FILE_BYTES = 10 * 1024 * 1024;
const UPLOADS = 24;
const PARALLEL = 4;

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
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

const { child, origin } = await startAppServer();
try {
  const token = (
    await tokensFromFlow(origin, {
      clientId: 'demo-vendor',
      redirectUri: 'http://127.0.0.1:61000/callback',
      scope: 'storage:write',
      who: person('owner'),
    })
  ).access_token;
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
