// Operator operations of the storage family (CONTRACT 6 storage, scope storage:write): upload a file (the
// REST door streams the body into the asset store first; this records what was stored) and delete an
// asset with its file. Assets are served from the site's own origin at /assets/{id}.
import { z } from 'zod';
import { UPLOAD_MEDIA_TYPES } from '../../assets/media-types.js';
import { deleteAsset, findAsset, insertAsset } from '../../school/assets.repository.js';
import { instant, iso } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError } from '../operation.js';
import { siteScope } from './site-scope.js';

/** Where an asset is served: the site's configured origin, never a request header. */
export function assetUrl(ctx: OperationContext, id: string): string {
  return `${ctx.site.origin}/assets/${id}`;
}

const asset = z.object({
  id: z.string(),
  url: z.string().describe('Where it is served, from this school’s origin.'),
  mediaType: z.enum(UPLOAD_MEDIA_TYPES),
  size: z.number().int().describe('Bytes.'),
  sha256: z.string().describe('Hex SHA-256 of the content.'),
  createdAt: instant('When it was uploaded'),
});

export const uploadAsset = defineOperation({
  name: 'upload_asset',
  title: 'Upload a file',
  description:
    `Stores a file sent as the request body, with Content-Type its media type (${UPLOAD_MEDIA_TYPES.join(', ')}; the content must be ` +
    'what the type says), and answers the asset with the URL it is served at. Larger than the limit: 413; another type: 415.',
  audience: 'operator',
  scopes: ['storage:write'],
  rest: { method: 'POST', path: '/uploads', status: 201, upload: true },
  tool: false,
  input: z.object({
    stagedKey: z.string().min(1).max(200),
    mediaType: z.enum(UPLOAD_MEDIA_TYPES),
    size: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  output: z.object({ asset }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  audit: (_input, output) => `asset:${output.asset.id}`,
  async handle(ctx, input) {
    const id = `ast_${input.sha256.slice(0, 8)}${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const createdAt = ctx.clock.now();
    await insertAsset(siteScope(ctx), {
      id,
      storageKey: input.stagedKey,
      mediaType: input.mediaType,
      size: input.size,
      sha256: input.sha256,
      createdBy: ctx.personId,
      createdAt,
    });
    return {
      asset: { id, url: assetUrl(ctx, id), mediaType: input.mediaType, size: input.size, sha256: input.sha256, createdAt: iso(createdAt) },
    };
  },
});

export const deleteAssetOperation = defineOperation({
  name: 'delete_asset',
  title: 'Delete an asset',
  description: 'Deletes an uploaded asset and its file; its URL answers 404 from then on.',
  audience: 'operator',
  scopes: ['storage:write'],
  rest: { method: 'DELETE', path: '/assets/{id}' },
  tool: false,
  input: z.object({ id: z.string().min(1).max(64).describe('The asset id (ast_…).') }),
  output: z.object({ deleted: z.literal(true), id: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  audit: (input) => `asset:${input.id}`,
  async handle(ctx, input) {
    if (!ctx.assets) throw new Error('delete_asset needs the asset store');
    const scope = siteScope(ctx);
    if (!(await findAsset(scope, input.id))) throw new OperationError('not_found', `This school has no asset with the id ${input.id}.`);
    const key = await deleteAsset(scope, input.id);
    // The row goes in this transaction; the file right after. Should the commit fail, the row stays and
    // its URL answers 404 (the file is gone), and deleting again finishes the job.
    if (key) await ctx.assets.remove(key);
    return { deleted: true as const, id: input.id };
  },
});

export const STORAGE_OPERATIONS: readonly Operation[] = [uploadAsset, deleteAssetOperation];
