// Coupons as operators manage them (CONTRACT 6 coupons): list, read, create one or a batch of unique codes,
// change the cap, expiry and products, disable. A coupon's redemptions are the orders that name its code,
// counted when read, so the count cannot drift from the orders (an index on (site, coupon_code) keeps
// that a lookup). Codes are stored upper case and match without regard to case.
import { randomBytes, randomUUID } from 'node:crypto';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { ProductRef } from './products.repository.js';
import type { SiteScope } from './scope.js';

export type CouponProduct = ProductRef;

export type CouponState = 'active' | 'disabled' | 'expired' | 'used_up';

export interface Coupon {
  id: string;
  code: string;
  percentOff: number | null;
  amountOffCents: number | null;
  currency: string | null;
  maxRedemptions: number | null;
  expiresAt: number | null;
  disabledAt: number | null;
  batchId: string | null;
  products: CouponProduct[];
  redemptionCount: number;
  createdAt: number;
  updatedAt: number | null;
}

/** What a coupon takes off: a percentage, or an amount in one currency. */
export type Discount = { percentOff: number } | { amountOffCents: number; currency: string };

export interface CouponTerms {
  discount: Discount;
  maxRedemptions: number | null;
  expiresAt: number | null;
  products: readonly CouponProduct[];
}

/** A coupon's state at `now`: disabled wins, then expired, then used up. */
export function couponState(coupon: Coupon, now: number): CouponState {
  if (coupon.disabledAt !== null) return 'disabled';
  if (coupon.expiresAt !== null && coupon.expiresAt <= now) return 'expired';
  if (coupon.maxRedemptions !== null && coupon.redemptionCount >= coupon.maxRedemptions) return 'used_up';
  return 'active';
}

export const normalCode = (code: string) => code.trim().toUpperCase();

const LIST = 'operator_coupons';
const COLUMNS = [
  'id',
  'code',
  'percent_off',
  'amount_off_cents',
  'currency',
  'max_redemptions',
  'expires_at',
  'disabled_at',
  'batch_id',
  'created_at',
  'updated_at',
] as const;

interface CouponRow {
  id: string;
  code: string;
  percent_off: number | null;
  amount_off_cents: number | null;
  currency: string | null;
  max_redemptions: number | null;
  expires_at: number | null;
  disabled_at: number | null;
  batch_id: string | null;
  created_at: number;
  updated_at: number | null;
}

const num = (v: number | null) => (v === null ? null : Number(v));

/** Products and redemption counts of a page of coupons, two queries whatever the page size. */
async function complete(scope: SiteScope, rows: readonly CouponRow[]): Promise<Coupon[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const codes = rows.map((r) => r.code);
  const [products, redemptions] = await Promise.all([
    scope.db
      .selectFrom('coupon_products')
      .select(['coupon_id', 'product_type', 'product_id'])
      .where('site_id', '=', scope.siteId)
      .where('coupon_id', 'in', ids)
      .orderBy('product_type')
      .orderBy('product_id')
      .execute(),
    scope.db
      .selectFrom('orders')
      .where('site_id', '=', scope.siteId)
      .where('coupon_code', 'in', codes)
      .groupBy('coupon_code')
      .select((eb) => ['coupon_code', eb.fn.countAll().as('n')])
      .execute(),
  ]);
  const byCoupon = new Map<string, CouponProduct[]>();
  for (const p of products) byCoupon.set(p.coupon_id, [...(byCoupon.get(p.coupon_id) ?? []), { type: p.product_type, id: p.product_id }]);
  const counts = new Map(redemptions.map((r) => [r.coupon_code ?? '', Number(r.n)]));
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    percentOff: num(row.percent_off),
    amountOffCents: num(row.amount_off_cents),
    currency: row.currency,
    maxRedemptions: num(row.max_redemptions),
    expiresAt: num(row.expires_at),
    disabledAt: num(row.disabled_at),
    batchId: row.batch_id,
    products: byCoupon.get(row.id) ?? [],
    redemptionCount: counts.get(row.code) ?? 0,
    createdAt: Number(row.created_at),
    updatedAt: num(row.updated_at),
  }));
}

export interface CouponFilter {
  batchId?: string | undefined;
  code?: string | undefined;
}

function filtered(scope: SiteScope, filter: CouponFilter) {
  return scope.db
    .selectFrom('coupons')
    .where('site_id', '=', scope.siteId)
    .$if(filter.batchId !== undefined, (qb) => qb.where('batch_id', '=', filter.batchId ?? ''))
    .$if(filter.code !== undefined, (qb) => qb.where('code', '=', normalCode(filter.code ?? '')));
}

/** A site's coupons, newest first. */
export async function listCoupons(scope: SiteScope, filter: CouponFilter, request: PageRequest): Promise<Page<Coupon>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await filtered(scope, filter)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, await complete(scope, rows), size, (c) => ({ sort: c.createdAt, id: c.id }));
}

export async function countCoupons(scope: SiteScope, filter: CouponFilter): Promise<number> {
  const row = await filtered(scope, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findCoupon(scope: SiteScope, id: string): Promise<Coupon | null> {
  const row = await scope.db
    .selectFrom('coupons')
    .select(COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return (await complete(scope, [row]))[0] ?? null;
}

async function writeProducts(scope: SiteScope, couponIds: readonly string[], products: readonly CouponProduct[]): Promise<void> {
  const rows = couponIds.flatMap((coupon_id) =>
    products.map((p) => ({ coupon_id, site_id: scope.siteId, product_type: p.type, product_id: p.id })),
  );
  for (let i = 0; i < rows.length; i += 500)
    await scope.db
      .insertInto('coupon_products')
      .values(rows.slice(i, i + 500))
      .execute();
}

function termsColumns(terms: CouponTerms) {
  return {
    percent_off: 'percentOff' in terms.discount ? terms.discount.percentOff : null,
    amount_off_cents: 'amountOffCents' in terms.discount ? terms.discount.amountOffCents : null,
    currency: 'currency' in terms.discount ? terms.discount.currency : null,
    max_redemptions: terms.maxRedemptions,
    expires_at: terms.expiresAt,
  };
}

/** One coupon with a chosen code; null when the site already has that code. */
export async function createCoupon(scope: SiteScope, code: string, terms: CouponTerms, now: number): Promise<Coupon | null> {
  const id = `cpn_${randomUUID()}`;
  const result = await scope.db
    .insertInto('coupons')
    .values({
      id,
      site_id: scope.siteId,
      code: normalCode(code),
      ...termsColumns(terms),
      disabled_at: null,
      batch_id: null,
      created_at: now,
      updated_at: null,
    })
    .onConflict((oc) => oc.columns(['site_id', 'code']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!result) return null;
  await writeProducts(scope, [id], terms.products);
  return findCoupon(scope, id);
}

// No 0/O or 1/I/L: codes are read aloud and typed from print.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function randomCode(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let code = prefix;
  // 31 symbols from a byte: the modulo bias (256 = 8*31 + 8) is under 4% and a coupon code needs no more.
  for (const b of bytes) code += ALPHABET[b % ALPHABET.length];
  return code;
}

/**
 * `count` coupons with unique random codes (prefix + 8 symbols, about 40 bits), as one batch. A code that
 * happens to exist already is drawn again, so the batch always has `count` coupons.
 */
export async function createCouponBatch(
  scope: SiteScope,
  prefix: string,
  count: number,
  terms: CouponTerms,
  now: number,
): Promise<{ batchId: string; codes: string[] }> {
  const batchId = `cpb_${randomUUID()}`;
  const made: Array<{ id: string; code: string }> = [];
  while (made.length < count) {
    const wanted = count - made.length;
    const candidates = [...new Set(Array.from({ length: wanted }, () => randomCode(normalCode(prefix), 8)))];
    const rows = candidates.map((code) => ({
      id: `cpn_${randomUUID()}`,
      site_id: scope.siteId,
      code,
      ...termsColumns(terms),
      disabled_at: null,
      batch_id: batchId,
      created_at: now,
      updated_at: null,
    }));
    for (let i = 0; i < rows.length; i += 200) {
      const inserted = await scope.db
        .insertInto('coupons')
        .values(rows.slice(i, i + 200))
        .onConflict((oc) => oc.columns(['site_id', 'code']).doNothing())
        .returning(['id', 'code'])
        .execute();
      made.push(...inserted);
    }
  }
  await writeProducts(
    scope,
    made.map((m) => m.id),
    terms.products,
  );
  return { batchId, codes: made.map((m) => m.code).sort() };
}

export interface CouponChanges {
  maxRedemptions?: number | null;
  expiresAt?: number | null;
  products?: readonly CouponProduct[];
}

export async function updateCoupon(scope: SiteScope, id: string, changes: CouponChanges, now: number): Promise<Coupon | null> {
  const result = await scope.db
    .updateTable('coupons')
    .set({
      ...(changes.maxRedemptions !== undefined ? { max_redemptions: changes.maxRedemptions } : {}),
      ...(changes.expiresAt !== undefined ? { expires_at: changes.expiresAt } : {}),
      updated_at: now,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  if (changes.products !== undefined) {
    await scope.db.deleteFrom('coupon_products').where('site_id', '=', scope.siteId).where('coupon_id', '=', id).execute();
    await writeProducts(scope, [id], changes.products);
  }
  return findCoupon(scope, id);
}

/** Disables a coupon for good; disabling a disabled coupon keeps its first moment. */
export async function disableCoupon(scope: SiteScope, id: string, now: number): Promise<Coupon | null> {
  await scope.db
    .updateTable('coupons')
    .set({ disabled_at: now, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .execute();
  return findCoupon(scope, id);
}
