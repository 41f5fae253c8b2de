// An upload's body, streamed to the asset store as it arrives (issue 10: an upload of 10 MB neither blocks
// other requests nor is held in memory): counted against the size limit, hashed, and its first bytes
// checked against the media type it claims. What fails is removed and answered as a problem.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Problem } from '../http/problem.js';
import { newId } from '../kernel/random.js';
import type { AssetStore } from './asset-store.js';
import { isUploadMediaType, matchesContent, SNIFF_BYTES, UPLOAD_MEDIA_TYPES, type UploadMediaType } from './media-types.js';

export interface StagedUpload {
  /** Where the file is in the store. */
  key: string;
  mediaType: UploadMediaType;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
}

/** A refusal may come before the body was read to its end: then the connection must close after it. */
export type StageResult = { ok: true; upload: StagedUpload } | { ok: false; problem: Problem };

const tooLarge = (max: number): StageResult => ({
  ok: false,
  problem: { code: 'payload_too_large', status: 413, detail: `An upload may be at most ${max} bytes.` },
});

export async function stageUpload(store: AssetStore, request: FastifyRequest, siteId: string, maxBytes: number): Promise<StageResult> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!isUploadMediaType(type))
    return {
      ok: false,
      problem: {
        code: 'unsupported_media_type',
        status: 415,
        detail: `Send the file as its body with Content-Type one of: ${UPLOAD_MEDIA_TYPES.join(', ')}.`,
      },
    };
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(maxBytes);

  const key = `${siteId}/${newId('file')}`;
  const target = await store.create(key, type);
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  // Read by hand rather than piped: a file over the limit stops being read (not destroyed with its
  // socket), so the 413 can still be sent, with Connection: close so the rest is never read.
  const raw = request.raw;
  const out = target.stream;
  const outcome = await new Promise<'done' | 'too_large' | 'broken'>((resolve) => {
    let settled = false;
    const settle = (result: 'done' | 'too_large' | 'broken') => {
      if (settled) return;
      settled = true;
      raw.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        raw.pause();
        return settle('too_large');
      }
      hash.update(chunk);
      if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
      if (!out.write(chunk)) {
        raw.pause();
        out.once('drain', () => raw.resume());
      }
    };
    raw.on('data', onData);
    raw.once('end', () => out.end());
    raw.once('error', () => settle('broken'));
    raw.once('close', () => {
      if (!raw.complete) settle('broken');
    });
    out.once('finish', () => settle('done'));
    out.once('error', () => settle('broken'));
    raw.resume();
  });
  if (outcome !== 'done') {
    await target.abort();
    if (outcome === 'too_large') return tooLarge(maxBytes);
    return { ok: false, problem: { code: 'invalid_argument', status: 400, detail: 'The upload was interrupted before it was complete.' } };
  }
  if (size === 0) {
    await target.abort();
    return { ok: false, problem: { code: 'invalid_argument', status: 400, detail: 'The upload is empty: send the file as the body.' } };
  }
  if (!matchesContent(type, head)) {
    await target.abort();
    return {
      ok: false,
      problem: { code: 'unsupported_media_type', status: 415, detail: `The content is not ${type}: its first bytes say otherwise.` },
    };
  }
  try {
    await target.finish();
  } catch {
    await target.abort();
    return { ok: false, problem: { code: 'unavailable', status: 503, detail: 'The file could not be stored. Retry in a moment.' } };
  }
  return { ok: true, upload: { key, mediaType: type, size, sha256: hash.digest('hex') } };
}
