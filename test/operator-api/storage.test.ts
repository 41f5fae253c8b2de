// CONTRACT 6 storage (issue 10): POST /uploads takes the file as the body; the media type is checked by
// header and by content (415 otherwise), the size by a limit (413, with or without Content-Length); the
// file is written as it arrives (seen on disk before the upload ends, other requests answered meanwhile);
// served from the site's origin with its type and nosniff; DELETE /assets/{id} removes the file. Scope,
// site, Idempotency-Key and the OpenAPI request body. Real HTTP, both dialects.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { ADMIN_BASE, ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

const MAX = 12 * 1024 * 1024;
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('IHDR and the rest of a small image'),
]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Asset {
  id: string;
  url: string;
  mediaType: string;
  size: number;
  sha256: string;
}

/** Every file under a folder, partial ones included. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: storage (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let studioOperator: string;
    let coursesOnly: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.storage.max_upload_bytes = MAX;
        },
      });
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      coursesOnly = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read', who: person('owner') })).access_token;
    });
    afterAll(() => server?.close());

    const upload = (body: BodyInit, type: string, token = operator, headers: Record<string, string> = {}) =>
      fetch(`${server.academy}${ADMIN_BASE}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type, ...headers },
        body,
        duplex: 'half',
      } as RequestInit);

    it('stores a file and serves it from the school’s origin with its type, nosniff and a sandboxing CSP', async () => {
      const res = await upload(PNG, 'image/png');
      expect(res.status).toBe(201);
      const asset = ((await res.json()) as { asset: Asset }).asset;
      expect(asset).toMatchObject({ mediaType: 'image/png', size: PNG.length, sha256: createHash('sha256').update(PNG).digest('hex') });
      expect(asset.url).toBe(`${server.academy}/assets/${asset.id}`);
      const served = await fetch(asset.url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toContain('sandbox');
      expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
      expect((await fetch(asset.url, { headers: { 'if-none-match': served.headers.get('etag') ?? '' } })).status).toBe(304);
      // Another school's origin does not serve it.
      expect((await fetch(`${server.studio}/assets/${asset.id}`)).status).toBe(404);
    });

    it('refuses a media type that is not allowed, or content that is not what its header says (415), leaving no file', async () => {
      const before = filesUnder(server.config.assetsDir).length;
      for (const [body, type] of [
        ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'],
        ['<svg xmlns="http://www.w3.org/2000/svg"></svg>', 'image/png'],
        ['%PDF-1.7 but called a jpeg', 'image/jpeg'],
        ['plain words', 'text/plain'],
      ] as const) {
        const res = await upload(body, type);
        expect(res.status, type).toBe(415);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(((await res.json()) as { code: string }).code).toBe('unsupported_media_type');
      }
      const empty = await upload('', 'image/png');
      expect(empty.status).toBe(400);
      expect(filesUnder(server.config.assetsDir).length).toBe(before);
    });

    it('refuses a file over the limit with 413, declared or streamed without a length, leaving no file', async () => {
      const before = filesUnder(server.config.assetsDir).length;
      const big = Buffer.alloc(MAX + 1, 0);
      PNG.copy(big);
      const declared = await upload(big, 'image/png');
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as { code: string }).code).toBe('payload_too_large');
      const chunk = Buffer.alloc(256 * 1024, 7);
      let sent = 0;
      const streamed = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(PNG);
          if (sent > MAX + chunk.length) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      // The server stops reading at the limit and answers 413 with Connection: close.
      const res = await upload(streamed, 'image/png');
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      await sleep(100);
      expect(filesUnder(server.config.assetsDir).length).toBe(before);
    });

    it('writes a 10 MB upload to disk as it arrives and answers other requests meanwhile', async () => {
      const total = 10 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      // Sent at about 10 MB/s, so the upload is still under way while the checks below run.
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= total) return controller.close();
          const first = sent === 0;
          const n = Math.min(chunk.length, total - sent);
          sent += n;
          controller.enqueue(first ? Buffer.concat([PNG, chunk.subarray(PNG.length, n)]) : chunk.subarray(0, n));
          await sleep(6);
        },
      });
      let finished = false;
      const uploading = upload(body, 'image/png').then((res) => {
        finished = true;
        return res;
      });
      // Part of the file is on disk before the upload ends: it is written as it arrives, not held.
      let partial: string[] = [];
      for (let i = 0; i < 200; i++) {
        partial = filesUnder(server.config.assetsDir).filter((f) => f.endsWith('.partial'));
        if (partial.length === 1 && statSync(partial[0] as string).size > 1024 * 1024) break;
        await sleep(10);
      }
      expect(partial).toHaveLength(1);
      expect(statSync(partial[0] as string).size).toBeGreaterThan(1024 * 1024);
      const discovery = await fetch(`${server.academy}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      await discovery.text();
      expect(finished).toBe(false);
      const res = await uploading;
      expect(res.status).toBe(201);
      const asset = ((await res.json()) as { asset: Asset }).asset;
      expect(asset.size).toBe(total);
      const served = await fetch(asset.url);
      expect(Number(served.headers.get('content-length'))).toBe(total);
      await served.arrayBuffer();
    });

    it('deletes an asset with its file (its URL then 404), not another school’s; needs storage:write', async () => {
      const asset = ((await (await upload(PNG, 'image/png')).json()) as { asset: Asset }).asset;
      const files = filesUnder(server.config.assetsDir).length;
      expectProblem(await call(server.studio, 'DELETE', `/assets/${asset.id}`, studioOperator), 404, 'not_found');
      const denied = await upload(PNG, 'image/png', coursesOnly);
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="storage:write"');
      expect((await call(server.academy, 'DELETE', `/assets/${asset.id}`, operator)).body).toEqual({ deleted: true, id: asset.id });
      expect(filesUnder(server.config.assetsDir).length).toBe(files - 1);
      expect((await fetch(asset.url)).status).toBe(404);
      expectProblem(await call(server.academy, 'DELETE', `/assets/${asset.id}`, operator), 404, 'not_found');
    });

    it('replays an upload with the same Idempotency-Key and content as the first asset, keeping one file', async () => {
      const key = 'upload-once-1';
      const first = (await (await upload(PNG, 'image/png', operator, { 'idempotency-key': key })).json()) as { asset: Asset };
      const files = filesUnder(server.config.assetsDir).length;
      const again = await upload(PNG, 'image/png', operator, { 'idempotency-key': key });
      expect(again.status).toBe(201);
      expect(((await again.json()) as { asset: Asset }).asset.id).toBe(first.asset.id);
      expect(filesUnder(server.config.assetsDir).length).toBe(files);
      const other = Buffer.concat([PNG, Buffer.from('different')]);
      expect((await upload(other, 'image/png', operator, { 'idempotency-key': key })).status).toBe(422);
      expect(filesUnder(server.config.assetsDir).length).toBe(files);
    });

    it('documents the upload body in /openapi.json as binary, one entry per allowed media type', async () => {
      const document = (await (await fetch(`${server.academy}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { format: string } }> } }>>;
      };
      const content = document.paths[`${ADMIN_BASE}/uploads`]?.post?.requestBody?.content ?? {};
      expect(Object.keys(content)).toEqual(expect.arrayContaining(['image/png', 'image/jpeg', 'application/pdf']));
      expect(Object.keys(content)).not.toContain('image/svg+xml');
      expect(content['image/png']?.schema.format).toBe('binary');
    });
  });
}
