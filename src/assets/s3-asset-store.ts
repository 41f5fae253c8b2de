// Assets in an S3-compatible bucket (issue 10 storage, when S3_BUCKET is set), through the official AWS
// SDK. A file is sent as a multipart upload while it arrives (5 MB parts, one in flight, so a file is
// never whole in memory) and appears in the bucket only when the upload completes; an aborted upload
// leaves nothing behind.
import { PassThrough, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { ASSET_KEY, type AssetStore, type PendingFile } from './asset-store.js';

export interface S3Settings {
  bucket: string;
  /** Key prefix inside the bucket, e.g. "schoolgate/". */
  prefix: string;
  region: string;
  /** For S3-compatible services (MinIO, R2, …); unset for AWS. */
  endpoint: string | undefined;
  forcePathStyle: boolean;
  /** Unset: the SDK's default credential chain (environment, instance role, …). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

const PART_BYTES = 5 * 1024 * 1024;

/** The SDK's modules and this store's client. */
interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
  client: S3Client;
}

export class S3AssetStore implements AssetStore {
  /**
   * Loaded by the deployments that keep assets in a bucket only: importing the SDK took a quarter of a second
   * on its own, and an eighth of a second of every start of the server and of each CLI command.
   */
  private readonly sdk: Promise<Sdk>;

  constructor(private readonly settings: S3Settings) {
    this.sdk = Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({
      s3,
      Upload: storage.Upload,
      client: new s3.S3Client({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        forcePathStyle: settings.forcePathStyle,
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
      }),
    }));
    // A failed import is reported by the first call that needs the SDK; until then it is no unhandled rejection.
    this.sdk.catch(() => {});
  }

  private objectKey(key: string): string {
    if (!ASSET_KEY.test(key)) throw new Error(`not an asset key: ${key}`);
    return `${this.settings.prefix}${key}`;
  }

  async create(key: string, mediaType: string): Promise<PendingFile> {
    const { Upload, client } = await this.sdk;
    const body = new PassThrough({ highWaterMark: 256 * 1024 });
    const upload = new Upload({
      client,
      params: { Bucket: this.settings.bucket, Key: this.objectKey(key), Body: body, ContentType: mediaType },
      partSize: PART_BYTES,
      queueSize: 1,
    });
    const done = upload.done();
    // A failed upload stops the writer (whose stream would otherwise wait for a reader forever); observed
    // here, an abort's rejection is never an unhandled one.
    done.catch((error: unknown) => body.destroy(error instanceof Error ? error : new Error(String(error))));
    return {
      stream: body,
      finish: async () => {
        await done;
      },
      abort: async () => {
        body.destroy();
        await upload.abort().catch(() => undefined);
      },
    };
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    const { s3, client } = await this.sdk;
    try {
      const object = await client.send(new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      if (!object.Body) return null;
      return { stream: object.Body as Readable, size: Number(object.ContentLength ?? 0) };
    } catch (error) {
      if (error instanceof s3.NoSuchKey || (error as { name?: string }).name === 'NotFound') return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    const { s3, client } = await this.sdk;
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
  }
}
