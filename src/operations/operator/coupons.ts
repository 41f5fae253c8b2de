// Operator operations of the coupons family (CONTRACT 6 coupons, scope coupons:*): list, read, create one,
// create a batch of unique codes (up to 1,000, idempotent with Idempotency-Key like every POST), change
// the cap, expiry and products, disable. A coupon's discount and code do not change once made: orders
// name it by code, and what a redeemed coupon gave must stay what it says.
import { z } from 'zod';
import {
  type Coupon,
  type CouponProduct,
  type CouponTerms,
  countCoupons,
  couponState,
  createCoupon,
  createCouponBatch,
  type Discount,
  disableCoupon,
  findCoupon,
  listCoupons,
  updateCoupon,
} from '../../school/coupons.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { checkProducts, productRef, productsInput } from './products.js';
import { siteScope } from './site-scope.js';

const MAX_BATCH = 1000;

export const operatorCoupon = z.object({
  id: z.string(),
  code: z.string().describe('The code buyers enter (matched without regard to case).'),
  percentOff: z.number().int().nullable().describe('Percent taken off; null for a fixed amount.'),
  amountOffCents: z.number().int().nullable().describe('Minor units taken off, in currency; null for a percentage.'),
  currency: z.string().nullable(),
  maxRedemptions: z.number().int().nullable().describe('How many orders may use it; null: no cap.'),
  expiresAt: instantOrNull('When it stops working; null: never'),
  products: z.array(productRef).describe('The products it applies to; empty: every product.'),
  redemptionCount: z.number().int().describe('Orders that used it.'),
  state: z.enum(['active', 'disabled', 'expired', 'used_up']),
  batchId: z.string().nullable().describe('The bulk creation that made it, if one did.'),
  disabledAt: instantOrNull('When it was disabled; null unless disabled'),
  createdAt: instant('When it was created'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

function couponOut(coupon: Coupon, now: number): z.output<typeof operatorCoupon> {
  return {
    id: coupon.id,
    code: coupon.code,
    percentOff: coupon.percentOff,
    amountOffCents: coupon.amountOffCents,
    currency: coupon.currency,
    maxRedemptions: coupon.maxRedemptions,
    expiresAt: isoOrNull(coupon.expiresAt),
    products: coupon.products,
    redemptionCount: coupon.redemptionCount,
    state: couponState(coupon, now),
    batchId: coupon.batchId,
    disabledAt: isoOrNull(coupon.disabledAt),
    createdAt: iso(coupon.createdAt),
    updatedAt: isoOrNull(coupon.updatedAt),
  };
}

const couponId = z.string().min(1).max(64).describe('The coupon id (cpn_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{2,39}$/;
const productsField = productsInput.describe(
  'The products it applies to, e.g. [{"type":"course","id":"crs_…"}]; omitted or empty: every product.',
);
const terms = {
  percentOff: z.number().int().min(1).max(100).optional().describe('Percent off, 1 to 100. Give this or amountOffCents.'),
  amountOffCents: z.number().int().min(1).max(100_000_000).optional().describe('Minor units off. Give this or percentOff.'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR')
    .optional()
    .describe('The currency of amountOffCents (required with it).'),
  maxRedemptions: z.number().int().min(1).max(10_000_000).optional().describe('How many orders may use it; no cap when omitted.'),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe('When it stops working (ISO 8601); never when omitted.'),
  products: productsField.optional(),
};

type TermsInput = {
  percentOff?: number | undefined;
  amountOffCents?: number | undefined;
  currency?: string | undefined;
  maxRedemptions?: number | undefined;
  expiresAt?: string | undefined;
  products?: CouponProduct[] | undefined;
};

/** The terms of a new coupon, checked: one kind of discount, a currency with an amount, a future expiry. */
async function termsOf(ctx: OperationContext, input: TermsInput): Promise<CouponTerms> {
  let discount: Discount;
  if (input.percentOff !== undefined && input.amountOffCents === undefined && input.currency === undefined)
    discount = { percentOff: input.percentOff };
  else if (input.amountOffCents !== undefined && input.percentOff === undefined && input.currency !== undefined)
    discount = { amountOffCents: input.amountOffCents, currency: input.currency };
  else
    throw new OperationError('invalid_argument', 'Give either percentOff, or amountOffCents with currency.', [
      {
        pointer: input.percentOff !== undefined ? '/amountOffCents' : '/percentOff',
        detail: 'one kind of discount, and a currency with an amount',
      },
    ]);
  const expiresAt = input.expiresAt === undefined ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null && expiresAt <= ctx.clock.now())
    throw new OperationError('invalid_argument', 'The expiry is in the past.', [
      { pointer: '/expiresAt', detail: 'must be in the future' },
    ]);
  const products = input.products ?? [];
  await checkProducts(ctx, products);
  return { discount, maxRedemptions: input.maxRedemptions ?? null, expiresAt, products };
}

async function couponOr404(ctx: OperationContext, id: string): Promise<Coupon> {
  const coupon = await findCoupon(siteScope(ctx), id);
  if (!coupon) throw new OperationError('not_found', `This school has no coupon with the id ${id}.`);
  return coupon;
}

export const listCouponsOperation = defineOperation({
  name: 'list_coupons',
  title: 'List coupons',
  description:
    'The school’s coupons, newest first, each with its discount, cap, expiry, products, state and how many orders used it. Filter by ' +
    'code or by the batch of a bulk creation. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['coupons:read'],
  rest: { method: 'GET', path: '/coupons' },
  input: z.object({
    ...pageInput,
    code: z.string().min(1).max(40).optional().describe('Only the coupon with this code (any case).'),
    batchId: z.string().min(1).max(64).optional().describe('Only the coupons of this bulk creation.'),
  }),
  output: z.object(pagedOutput(operatorCoupon, 'coupons')),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const filter = { code: input.code, batchId: input.batchId };
    const [page, total] = await Promise.all([listCoupons(scope, filter, pageRequest(input)), countCoupons(scope, filter)]);
    const now = ctx.clock.now();
    return paged(page, total, (c) => couponOut(c, now));
  },
});

export const getCoupon: Operation = defineOperation({
  name: 'get_coupon',
  title: 'Get a coupon',
  description: 'One coupon by id, with its state and redemption count.',
  audience: 'operator',
  scopes: ['coupons:read'],
  rest: { method: 'GET', path: '/coupons/{id}', resource: () => getCoupon },
  tool: false,
  input: z.object({ id: couponId }),
  output: z.object({ coupon: operatorCoupon }),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    return { coupon: couponOut(await couponOr404(ctx, input.id), ctx.clock.now()) };
  },
});

export const createCouponOperation = defineOperation({
  name: 'create_coupon',
  title: 'Create a coupon',
  description:
    'Creates one coupon with the code you choose: a percentage off (percentOff) or a fixed amount (amountOffCents with currency), ' +
    'optionally capped (maxRedemptions), expiring (expiresAt) and limited to some products. The code and discount cannot change later.',
  audience: 'operator',
  scopes: ['coupons:write'],
  rest: { method: 'POST', path: '/coupons', status: 201 },
  input: z.object({
    code: z
      .string()
      .regex(CODE, '3 to 40 letters, digits, "-" or "_", starting with a letter or digit')
      .describe('The code buyers enter, e.g. SPRING20 (stored upper case).'),
    ...terms,
  }),
  output: z.object({ coupon: operatorCoupon }),
  annotations: WRITE,
  audit: (_input, output) => `coupon:${output.coupon.id}`,
  async handle(ctx, input) {
    const coupon = await createCoupon(siteScope(ctx), input.code, await termsOf(ctx, input), ctx.clock.now());
    if (!coupon)
      throw new OperationError('conflict', `This school already has the coupon code ${input.code.toUpperCase()}.`, [
        { pointer: '/code', detail: 'already used' },
      ]);
    return { coupon: couponOut(coupon, ctx.clock.now()) };
  },
});

export const createCouponBatchOperation = defineOperation({
  name: 'create_coupon_batch',
  title: 'Create many unique coupons',
  description:
    `Creates up to ${MAX_BATCH} coupons with the same terms and unique random codes (prefix + 8 letters and digits), as one batch; ` +
    'answers the batch id and every code. Send an Idempotency-Key so a retry answers the same codes instead of making more.',
  audience: 'operator',
  scopes: ['coupons:write'],
  rest: { method: 'POST', path: '/coupons/bulk', status: 201 },
  tool: false,
  input: z.object({
    count: z.number().int().min(1).max(MAX_BATCH).describe(`How many coupons, 1 to ${MAX_BATCH}.`),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9]{0,12}-?$/, 'up to 12 letters or digits, optionally ending in "-"')
      .optional()
      .describe('Put before each code, e.g. "VIP-".'),
    ...terms,
  }),
  output: z.object({
    batchId: z.string(),
    count: z.number().int(),
    codes: z.array(z.string()).describe('Every code of the batch, sorted.'),
  }),
  annotations: WRITE,
  audit: (_input, output) => `coupon_batch:${output.batchId}`,
  async handle(ctx, input) {
    const batch = await createCouponBatch(siteScope(ctx), input.prefix ?? '', input.count, await termsOf(ctx, input), ctx.clock.now());
    return { batchId: batch.batchId, count: batch.codes.length, codes: batch.codes };
  },
});

export const updateCouponOperation = defineOperation({
  name: 'update_coupon',
  title: 'Change a coupon’s cap, expiry or products',
  description: 'Changes how many orders may use a coupon, when it expires and which products it applies to; null removes a cap or expiry.',
  audience: 'operator',
  scopes: ['coupons:write'],
  rest: { method: 'PATCH', path: '/coupons/{id}', resource: () => getCoupon },
  tool: false,
  input: z.object({
    id: couponId,
    maxRedemptions: z.number().int().min(1).max(10_000_000).nullable().optional(),
    expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
    products: productsField.optional(),
  }),
  output: z.object({ coupon: operatorCoupon }),
  annotations: { ...WRITE, idempotentHint: true },
  audit: (input) => `coupon:${input.id}`,
  async handle(ctx, input) {
    if (input.products) await checkProducts(ctx, input.products);
    const expiresAt = input.expiresAt === undefined ? undefined : input.expiresAt === null ? null : Date.parse(input.expiresAt);
    const coupon = await updateCoupon(
      siteScope(ctx),
      input.id,
      {
        ...(input.maxRedemptions !== undefined ? { maxRedemptions: input.maxRedemptions } : {}),
        ...(expiresAt !== undefined ? { expiresAt } : {}),
        ...(input.products !== undefined ? { products: input.products } : {}),
      },
      ctx.clock.now(),
    );
    if (!coupon) throw new OperationError('not_found', `This school has no coupon with the id ${input.id}.`);
    return { coupon: couponOut(coupon, ctx.clock.now()) };
  },
});

export const disableCouponOperation = defineOperation({
  name: 'disable_coupon',
  title: 'Disable a coupon',
  description: 'Stops a coupon from working, for good; orders that used it keep their discount and still count as redemptions.',
  audience: 'operator',
  scopes: ['coupons:write'],
  rest: { method: 'POST', path: '/coupons/{id}/disable', resource: () => getCoupon },
  tool: false,
  input: z.object({ id: couponId }),
  output: z.object({ coupon: operatorCoupon }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  audit: (input) => `coupon:${input.id}`,
  async handle(ctx, input) {
    const coupon = await disableCoupon(siteScope(ctx), input.id, ctx.clock.now());
    if (!coupon) throw new OperationError('not_found', `This school has no coupon with the id ${input.id}.`);
    return { coupon: couponOut(coupon, ctx.clock.now()) };
  },
});

export const COUPON_OPERATIONS: readonly Operation[] = [
  listCouponsOperation,
  getCoupon,
  createCouponOperation,
  createCouponBatchOperation,
  updateCouponOperation,
  disableCouponOperation,
];
