// Operator operations of the digital_products family (CONTRACT 6, scopes digital_products:*): list, read,
// create (a draft), edit, publish, archive (buyers keep what they bought), and a product's purchasers.
import { z } from 'zod';
import {
  countDigitalProducts,
  countPurchasers,
  createDigitalProduct,
  type DigitalProductWrite,
  findDigitalProduct,
  listDigitalProducts,
  listPurchasers,
  type OperatorDigitalProduct,
  transitionDigitalProduct,
  updateDigitalProduct,
} from '../../school/digital-products.repository.js';
import { siteCurrency } from '../../school/operator-catalogue.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { SLUG, slugField, slugFromTitle } from './courses.js';
import { siteScope } from './site-scope.js';

const product = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  kind: z.string().describe('What it is: ebook, template, audio, video, …'),
  description: z.string(),
  priceCents: z.number().int(),
  currency: z.string(),
  state: z.enum(['draft', 'published', 'archived']).describe('archived: not for sale; buyers keep it.'),
  purchaseCount: z.number().int(),
  createdAt: instant('When it was created'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

function productOut(p: OperatorDigitalProduct): z.output<typeof product> {
  return { ...p, createdAt: iso(p.createdAt), updatedAt: isoOrNull(p.updatedAt) };
}

const PRODUCT_TEXT = ['product.title', 'product.description'];
const productId = z.string().min(1).max(64).describe('The digital product id.');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const fields = {
  title: z.string().trim().min(1).max(200),
  kind: z.string().trim().min(1).max(40),
  description: z.string().max(10_000),
  priceCents: z.number().int().min(0).max(100_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR'),
};

function written(result: DigitalProductWrite, id: string, slug?: string): { product: z.output<typeof product> } {
  switch (result.kind) {
    case 'done':
      return { product: productOut(result.product) };
    case 'not_found':
      throw new OperationError('not_found', `This school has no digital product with the id ${id}.`);
    case 'slug_taken':
      throw new OperationError('conflict', `Another digital product of this school has the slug "${slug}".`, [
        { pointer: '/slug', detail: 'already used by another product' },
      ]);
  }
}

async function productOr404(ctx: OperationContext, id: string): Promise<OperatorDigitalProduct> {
  const found = await findDigitalProduct(siteScope(ctx), id);
  if (!found) throw new OperationError('not_found', `This school has no digital product with the id ${id}.`);
  return found;
}

export const listDigitalProductsOperation = defineOperation({
  name: 'list_digital_products',
  title: 'List digital products',
  description: 'Every digital product of this school in any state, newest first, with purchase counts.',
  audience: 'operator',
  scopes: ['digital_products:read'],
  rest: { method: 'GET', path: '/digital_products' },
  tool: false,
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(product, 'digital products')),
  annotations: READ_ONLY,
  userContent: ['items[].title', 'items[].description'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listDigitalProducts(scope, pageRequest(input)), countDigitalProducts(scope)]);
    return paged(page, total, productOut);
  },
});

export const getDigitalProduct: Operation = defineOperation({
  name: 'get_digital_product',
  title: 'Get a digital product',
  description: 'One digital product by id, in any state.',
  audience: 'operator',
  scopes: ['digital_products:read'],
  rest: { method: 'GET', path: '/digital_products/{id}', resource: () => getDigitalProduct },
  tool: false,
  input: z.object({ id: productId }),
  output: z.object({ product }),
  annotations: READ_ONLY,
  userContent: PRODUCT_TEXT,
  async handle(ctx, input) {
    return { product: productOut(await productOr404(ctx, input.id)) };
  },
});

export const createDigitalProductOperation = defineOperation({
  name: 'create_digital_product',
  title: 'Create a digital product',
  description: 'Creates a digital product as a draft (not for sale until published). The slug is made from the title unless given.',
  audience: 'operator',
  scopes: ['digital_products:write'],
  rest: { method: 'POST', path: '/digital_products', status: 201 },
  tool: false,
  input: z.object({
    title: fields.title,
    kind: fields.kind.describe('ebook, template, audio, video, …'),
    slug: slugField.optional(),
    description: fields.description.optional(),
    priceCents: fields.priceCents.describe('Price in minor units.'),
    currency: fields.currency.optional().describe('ISO 4217; the school’s currency when omitted.'),
  }),
  output: z.object({ product }),
  annotations: WRITE,
  userContent: PRODUCT_TEXT,
  audit: (_input, output) => `digital_product:${output.product.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const slug = input.slug ?? slugFromTitle(input.title);
    if (!SLUG.test(slug))
      throw new OperationError('invalid_argument', 'No slug can be made from this title: pass a slug.', [
        { pointer: '/slug', detail: 'required when the title has no letters or digits' },
      ]);
    const currency = input.currency ?? (await siteCurrency(scope)) ?? 'EUR';
    return written(
      await createDigitalProduct(
        scope,
        { slug, title: input.title, kind: input.kind, description: input.description ?? '', priceCents: input.priceCents, currency },
        ctx.clock.now(),
      ),
      '',
      slug,
    );
  },
});

export const updateDigitalProductOperation = defineOperation({
  name: 'update_digital_product',
  title: 'Edit a digital product',
  description: 'Changes the given fields of a digital product (the others stay) and returns it as stored.',
  audience: 'operator',
  scopes: ['digital_products:write'],
  rest: { method: 'PATCH', path: '/digital_products/{id}', resource: () => getDigitalProduct },
  tool: false,
  input: z.object({
    id: productId,
    title: fields.title.optional(),
    kind: fields.kind.optional(),
    slug: slugField.optional(),
    description: fields.description.optional(),
    priceCents: fields.priceCents.optional(),
    currency: fields.currency.optional(),
  }),
  output: z.object({ product }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: PRODUCT_TEXT,
  audit: (input) => `digital_product:${input.id}`,
  async handle(ctx, input) {
    const { id, ...changes } = input;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    return written(await updateDigitalProduct(siteScope(ctx), id, defined, ctx.clock.now()), id, input.slug);
  },
});

function transition(name: string, to: 'publish' | 'archive', title: string, description: string): Operation {
  return defineOperation({
    name,
    title,
    description,
    audience: 'operator',
    scopes: ['digital_products:write'],
    rest: { method: 'POST', path: `/digital_products/{id}/${to}`, resource: () => getDigitalProduct },
    tool: false,
    input: z.object({ id: productId }),
    output: z.object({ product }),
    annotations: { readOnlyHint: false, destructiveHint: to === 'archive', idempotentHint: true, openWorldHint: false },
    userContent: PRODUCT_TEXT,
    audit: (input) => `digital_product:${input.id}`,
    async handle(ctx, input) {
      return written(await transitionDigitalProduct(siteScope(ctx), input.id, to, ctx.clock.now()), input.id);
    },
  });
}

export const publishDigitalProduct = transition(
  'publish_digital_product',
  'publish',
  'Publish a digital product',
  'Puts a digital product on sale (from draft or archived).',
);
export const archiveDigitalProduct = transition(
  'archive_digital_product',
  'archive',
  'Archive a digital product',
  'Takes a digital product off sale; everyone who bought it keeps it.',
);

export const listDigitalProductPurchasers = defineOperation({
  name: 'list_digital_product_purchasers',
  title: 'List a digital product’s purchasers',
  description: 'Who bought one digital product, latest first, with name, e-mail and when. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['digital_products:read'],
  rest: { method: 'GET', path: '/digital_products/{id}/purchasers' },
  tool: false,
  input: z.object({ id: productId, ...pageInput }),
  output: z.object({
    productId: z.string(),
    ...pagedOutput(
      z.object({
        purchaseId: z.string(),
        personId: z.string(),
        name: z.string(),
        email: z.string(),
        purchasedAt: instant('When it was bought'),
      }),
      'purchasers',
    ),
  }),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    await productOr404(ctx, input.id);
    const [page, total] = await Promise.all([listPurchasers(scope, input.id, pageRequest(input)), countPurchasers(scope, input.id)]);
    return { productId: input.id, ...paged(page, total, (p) => ({ ...p, purchasedAt: iso(p.purchasedAt) })) };
  },
});

export const DIGITAL_PRODUCT_OPERATIONS: readonly Operation[] = [
  listDigitalProductsOperation,
  getDigitalProduct,
  createDigitalProductOperation,
  updateDigitalProductOperation,
  publishDigitalProduct,
  archiveDigitalProduct,
  listDigitalProductPurchasers,
];
