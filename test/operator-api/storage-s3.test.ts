// CONTRACT 6 storage in an S3-compatible bucket (issue 10): with S3_BUCKET set, uploads go to the bucket
// through the official AWS SDK as they arrive (multipart), are served from the site's origin, and are
// deleted from the bucket; refused uploads leave no object. Against s3rver, a local S3-compatible server
// installed from npm, over real HTTP with a real operator token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { ADMIN_BASE, ALL_REST_SCOPES, call, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('an image in a bucket')]);
const BUCKET = 'school-assets';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: storage in an S3-compatible bucket (${dialect})`, () => {
    let s3: S3rver;
    let s3Dir: string;
    let client: S3Client;
    let server: DemoServer;
    let operator: string;

    beforeAll(async () => {
      s3Dir = mkdtempSync(join(tmpdir(), 'schoolgate-s3-'));
      s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
      const { port } = await s3.run();
      const endpoint = `http://127.0.0.1:${port}`;
      const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
      client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
      await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
      server = await startDemoServer(dialect, {
        env: {
          S3_BUCKET: BUCKET,
          S3_PREFIX: 'schoolgate/',
          S3_ENDPOINT: endpoint,
          S3_FORCE_PATH_STYLE: '1',
          S3_ACCESS_KEY_ID: credentials.accessKeyId,
          S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        },
      });
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
    });
    afterAll(async () => {
      await server?.close();
      client?.destroy();
      await s3?.close();
      rmSync(s3Dir, { recursive: true, force: true });
    });

    const objects = async () =>
      ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => ({
        key: o.Key ?? '',
        size: o.Size ?? 0,
      }));
    const upload = (body: Uint8Array | ReadableStream<Uint8Array>, type: string) =>
      fetch(`${server.academy}${ADMIN_BASE}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': type },
        body,
        duplex: 'half',
      } as RequestInit);

    it('stores an upload in the bucket, serves it from the school’s origin, and deletes it from the bucket', async () => {
      const res = await upload(new Uint8Array(PNG), 'image/png');
      expect(res.status).toBe(201);
      const asset = ((await res.json()) as { asset: { id: string; url: string } }).asset;
      const stored = await objects();
      expect(stored).toEqual([expect.objectContaining({ size: PNG.length })]);
      expect(stored[0]?.key).toMatch(/^schoolgate\/site_[^/]+\/file_/);
      const served = await fetch(asset.url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
      expect((await call(server.academy, 'DELETE', `/assets/${asset.id}`, operator)).status).toBe(200);
      expect(await objects()).toEqual([]);
      expect((await fetch(asset.url)).status).toBe(404);
    });

    it('sends a 12 MB upload in parts as it arrives, and leaves no object for a refused one', async () => {
      const total = 12 * 1024 * 1024;
      const chunk = Buffer.alloc(256 * 1024, 5);
      PNG.copy(chunk);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) return controller.close();
          sent += chunk.length;
          controller.enqueue(new Uint8Array(chunk));
        },
      });
      const res = await upload(body, 'image/png');
      expect(res.status).toBe(201);
      const asset = ((await res.json()) as { asset: { id: string; size: number } }).asset;
      expect(asset.size).toBe(total);
      expect((await objects()).map((o) => o.size)).toEqual([total]);
      await call(server.academy, 'DELETE', `/assets/${asset.id}`, operator);

      const wrong = await upload(new Uint8Array(Buffer.from('%PDF-1.7 pretending')), 'image/png');
      expect(wrong.status).toBe(415);
      await wrong.text();
      expect(await objects()).toEqual([]);
    });
  });
}
