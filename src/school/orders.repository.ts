// Orders (CONTRACT 6 orders): what students bought, with lines, payments and refunds. There is no
// checkout; orders are placed by the demo seed and by the domain through placeOrder, which books the
// analytics roll-ups in the same transaction as the order.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { newId } from '../kernel/random.js';
import type { Database } from '../storage/schema.js';
import { ORDER_STATUSES, type OrderStatus, type ProductType } from '../storage/school-schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import { book, lineRevenue, localDay, productDim, SCHOOL, siteTimeZone } from './rollups.js';
import type { SiteScope } from './scope.js';

export interface NewOrderLine {
  productType: ProductType;
  productId: string;
  title: string;
  quantity: number;
  unitPriceCents: number;
}

export interface NewOrder {
  personId: string;
  currency: string;
  lines: readonly NewOrderLine[];
  discountCents?: number;
  couponCode?: string | null;
  method: string;
  at: number;
}

/** Places a paid order: order, lines and payment, and the roll-ups of that day. Answers its id. */
export async function placeOrder(scope: SiteScope, order: NewOrder): Promise<string> {
  const id = newId('ord');
  const last = await scope.db
    .selectFrom('orders')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.max('number').as('n'))
    .executeTakeFirst();
  const amounts = order.lines.map((l) => l.unitPriceCents * l.quantity);
  const subtotal = amounts.reduce((a, b) => a + b, 0);
  const discount = Math.min(order.discountCents ?? 0, subtotal);
  const total = subtotal - discount;
  await scope.db
    .insertInto('orders')
    .values({
      id,
      site_id: scope.siteId,
      number: Number(last?.n ?? 0) + 1,
      person_id: order.personId,
      status: 'paid',
      currency: order.currency,
      subtotal_cents: subtotal,
      discount_cents: discount,
      total_cents: total,
      refunded_cents: 0,
      coupon_code: order.couponCode ?? null,
      created_at: order.at,
      paid_at: order.at,
    })
    .execute();
  await scope.db
    .insertInto('order_lines')
    .values(
      order.lines.map((l, i) => ({
        id: `${id}-${i + 1}`,
        site_id: scope.siteId,
        order_id: id,
        product_type: l.productType,
        product_id: l.productId,
        title: l.title,
        quantity: l.quantity,
        unit_price_cents: l.unitPriceCents,
        amount_cents: amounts[i] ?? 0,
        created_at: order.at,
      })),
    )
    .execute();
  await scope.db
    .insertInto('payments')
    .values({ id: newId('pay'), site_id: scope.siteId, order_id: id, amount_cents: total, at: order.at, method: order.method })
    .execute();
  const day = localDay(order.at, await siteTimeZone(scope.db, scope.siteId));
  const shares = lineRevenue(amounts, total);
  await book(scope.db, scope.siteId, 'revenue', day, total, [SCHOOL]);
  await book(scope.db, scope.siteId, 'orders', day, 1, [SCHOOL]);
  for (const [i, l] of order.lines.entries()) {
    const dim = productDim(l.productType, l.productId);
    await book(scope.db, scope.siteId, 'revenue', day, shares[i] ?? 0, [dim]);
    await book(scope.db, scope.siteId, 'orders', day, 1, [dim]);
  }
  return id;
}

export type RefundResult = { kind: 'refunded' } | { kind: 'not_found' } | { kind: 'too_much'; refundable: number };

/** Refunds part or all of a paid order. */
export async function refundOrder(
  scope: SiteScope,
  orderId: string,
  amountCents: number,
  reason: string,
  at: number,
): Promise<RefundResult> {
  const order = await scope.db
    .selectFrom('orders')
    .select(['total_cents', 'refunded_cents'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', orderId)
    .executeTakeFirst();
  if (!order) return { kind: 'not_found' };
  const refundable = Number(order.total_cents) - Number(order.refunded_cents);
  if (amountCents > refundable) return { kind: 'too_much', refundable };
  const refunded = Number(order.refunded_cents) + amountCents;
  const status: OrderStatus = refunded >= Number(order.total_cents) ? 'refunded' : 'partially_refunded';
  await scope.db
    .insertInto('refunds')
    .values({ id: newId('rfd'), site_id: scope.siteId, order_id: orderId, amount_cents: amountCents, at, reason })
    .execute();
  await scope.db
    .updateTable('orders')
    .set({ refunded_cents: refunded, status })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', orderId)
    .execute();
  await book(scope.db, scope.siteId, 'refunds', localDay(at, await siteTimeZone(scope.db, scope.siteId)), amountCents, [SCHOOL]);
  return { kind: 'refunded' };
}

export interface OrderSummaryRow {
  id: string;
  number: number;
  studentId: string;
  studentName: string;
  status: OrderStatus;
  currency: string;
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  refundedCents: number;
  couponCode: string | null;
  createdAt: number;
  paidAt: number | null;
}

export interface OrderFilter {
  status?: OrderStatus;
  from?: number;
  to?: number;
  productId?: string;
  couponCode?: string;
  studentId?: string;
}

const LIST = 'operator_orders';

/**
 * The site's orders matching the filter. People are joined only where a row shows its student's name
 * (withStudents): every order has its person (a non-null foreign key), and a total that joined them
 * looked up a person per order (360-400 ms against 57-72 ms at a million orders on SQLite). A product's
 * orders are reached from its lines instead (pageProductOrders, countOrders).
 */
function filtered(scope: SiteScope, filter: Omit<OrderFilter, 'productId'>) {
  return scope.db
    .selectFrom('orders as o')
    .where('o.site_id', '=', scope.siteId)
    .where((eb) => orderMatches(eb, filter))
    .$if(filter.from !== undefined, (qb) => qb.where('o.created_at', '>=', filter.from ?? 0))
    .$if(filter.to !== undefined, (qb) => qb.where('o.created_at', '<', filter.to ?? 0));
}

/** The site's order lines of a product. */
function productLines(scope: SiteScope, productId: string) {
  return scope.db.selectFrom('order_lines as l').where('l.site_id', '=', scope.siteId).where('l.product_id', '=', productId);
}

/** The filter's conditions on the order itself (status, coupon, student), for the orders and for a product's lines' orders alike. */
function orderMatches(
  eb: ExpressionBuilder<Database & { o: Database['orders'] }, 'o'>,
  filter: Omit<OrderFilter, 'productId'>,
): Expression<SqlBool> {
  return eb.and([
    ...(filter.status !== undefined ? [eb('o.status', '=', filter.status)] : []),
    ...(filter.couponCode !== undefined ? [eb('o.coupon_code', '=', filter.couponCode)] : []),
    ...(filter.studentId !== undefined ? [eb('o.person_id', '=', filter.studentId)] : []),
  ]);
}

function withStudents(orders: ReturnType<typeof filtered>) {
  return orders.innerJoin('people as p', 'p.id', 'o.person_id');
}

function toSummary(r: {
  id: string;
  number: number;
  person_id: string;
  name: string;
  status: OrderStatus;
  currency: string;
  subtotal_cents: number;
  discount_cents: number;
  total_cents: number;
  refunded_cents: number;
  coupon_code: string | null;
  created_at: number;
  paid_at: number | null;
}): OrderSummaryRow {
  return {
    id: r.id,
    number: Number(r.number),
    studentId: r.person_id,
    studentName: r.name,
    status: r.status,
    currency: r.currency,
    subtotalCents: Number(r.subtotal_cents),
    discountCents: Number(r.discount_cents),
    totalCents: Number(r.total_cents),
    refundedCents: Number(r.refunded_cents),
    couponCode: r.coupon_code,
    createdAt: Number(r.created_at),
    paidAt: r.paid_at === null ? null : Number(r.paid_at),
  };
}

const COLUMNS = [
  'o.id',
  'o.number',
  'o.person_id',
  'p.name',
  'o.status',
  'o.currency',
  'o.subtotal_cents',
  'o.discount_cents',
  'o.total_cents',
  'o.refunded_cents',
  'o.coupon_code',
  'o.created_at',
  'o.paid_at',
] as const;

/** Orders matching the filter, newest first. */
export async function pageOrders(scope: SiteScope, filter: OrderFilter, request: PageRequest): Promise<Page<OrderSummaryRow>> {
  if (filter.productId !== undefined) return pageProductOrders(scope, filter.productId, filter, request);
  const { size, after } = pageQuery(LIST, request);
  const rows = await withStudents(filtered(scope, filter))
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('o.created_at', '<', after?.sort ?? 0),
          eb.and([eb('o.created_at', '=', after?.sort ?? 0), eb('o.id', '<', after?.id ?? '')]),
        ]),
      ),
    )
    .select(COLUMNS)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, rows.map(toSummary), size, (o) => ({ sort: o.createdAt, id: o.id }));
}

/**
 * A product's orders matching the filter, newest first, walked from the product's lines, which carry
 * their order's time (migration 026): the page reads its first entries of the (site, product, time, order)
 * index, however many orders the product or the site has. An order with several lines of the product is
 * listed at its first line only. The other filters apply to the orders met on the way.
 */
async function pageProductOrders(
  scope: SiteScope,
  productId: string,
  filter: OrderFilter,
  request: PageRequest,
): Promise<Page<OrderSummaryRow>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await productLines(scope, productId)
    .innerJoin('orders as o', 'o.id', 'l.order_id')
    .innerJoin('people as p', 'p.id', 'o.person_id')
    .where('o.site_id', '=', scope.siteId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('order_lines as x')
            .select('x.id')
            .whereRef('x.order_id', '=', 'l.order_id')
            .where('x.product_id', '=', productId)
            .whereRef('x.id', '<', 'l.id'),
        ),
      ),
    )
    .where((eb) => orderMatches(eb, filter))
    .$if(filter.from !== undefined, (qb) => qb.where('l.created_at', '>=', filter.from ?? 0))
    .$if(filter.to !== undefined, (qb) => qb.where('l.created_at', '<', filter.to ?? 0))
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('l.created_at', '<', after?.sort ?? 0),
          eb.and([eb('l.created_at', '=', after?.sort ?? 0), eb('l.order_id', '<', after?.id ?? '')]),
        ]),
      ),
    )
    .select(COLUMNS)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.order_id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(LIST, rows.map(toSummary), size, (o) => ({ sort: o.createdAt, id: o.id }));
}

/** A product's orders, from the counts its lines' triggers keep (migration 027): a few rows. */
async function productTotal(scope: SiteScope, productId: string): Promise<number> {
  const row = await scope.db
    .selectFrom('order_product_counts')
    .where('site_id', '=', scope.siteId)
    .where('product_id', '=', productId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A line of the product in order `o`: one probe of the lines' (site, product, order) index. */
function ofProduct(
  selectFrom: ExpressionBuilder<Database & { o: Database['orders'] }, 'o'>['selectFrom'],
  scope: SiteScope,
  productId: string,
) {
  return selectFrom('order_lines as x')
    .select('x.id')
    .where('x.site_id', '=', scope.siteId)
    .where('x.product_id', '=', productId)
    .whereRef('x.order_id', '=', 'o.id');
}

/** A product's distinct orders matching the filter, counted from the index of its lines, looking up only their orders. */
async function countProductLines(scope: SiteScope, productId: string, filter: OrderFilter): Promise<number> {
  const lines = productLines(scope, productId)
    .$if(filter.from !== undefined, (qb) => qb.where('l.created_at', '>=', filter.from ?? 0))
    .$if(filter.to !== undefined, (qb) => qb.where('l.created_at', '<', filter.to ?? 0));
  const onOrders = filter.status !== undefined || filter.couponCode !== undefined || filter.studentId !== undefined;
  const row = await (onOrders
    ? lines
        .innerJoin('orders as o', 'o.id', 'l.order_id')
        .where((eb) => orderMatches(eb, filter))
        .select((eb) => eb.fn.count<number | string>('l.order_id').distinct().as('n'))
    : lines.select((eb) => eb.fn.count<number | string>('l.order_id').distinct().as('n'))
  ).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A product's orders with a status. Both sides are counted already: the site's orders per status
 * (migration 020) and the product's orders (migration 027). One status and product is counted from the
 * smaller of its two sides (the status's orders through their index, asking each for a line of the
 * product, or the product's lines, asking each order its status), or as the product's orders less those
 * of the other statuses when that reads less: most orders are paid, so "a course's paid orders" is its
 * orders less its few refunded ones rather than 100,000 lines (62 ms on SQLite at a million orders).
 */
async function countProductWithStatus(scope: SiteScope, productId: string, status: OrderStatus): Promise<number> {
  const [statusRows, product] = await Promise.all([
    scope.db
      .selectFrom('order_counts')
      .where('site_id', '=', scope.siteId)
      .groupBy('status')
      .select((eb) => ['status', eb.fn.sum<number | string>('n').as('n')])
      .execute(),
    productTotal(scope, productId),
  ]);
  const ofStatus = new Map(statusRows.map((r) => [r.status, Number(r.n)]));
  const cost = (s: OrderStatus) => Math.min(ofStatus.get(s) ?? 0, product);
  const one = async (s: OrderStatus): Promise<number> => {
    if ((ofStatus.get(s) ?? 0) > product) return countProductLines(scope, productId, { status: s });
    const row = await filtered(scope, { status: s })
      .where(({ exists, selectFrom }) => exists(ofProduct(selectFrom, scope, productId)))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const others = ORDER_STATUSES.filter((s) => s !== status);
  if (cost(status) <= others.reduce((sum, s) => sum + cost(s), 0)) return one(status);
  const counts = await Promise.all(others.map(one));
  return product - counts.reduce((sum, n) => sum + n, 0);
}

/**
 * How many orders match the filter. With no filter but a status, from the counts that the orders'
 * triggers keep (migration 020): a few rows however many orders; with a time range, from their sums
 * (migration 021); a product alone or with a status, from its counts (migration 027) and those.
 */
export async function countOrders(scope: SiteScope, filter: OrderFilter): Promise<number> {
  const { status, ...rest } = filter;
  const { productId, ...others } = filter;
  if (productId !== undefined && Object.values(others).every((value) => value === undefined)) return productTotal(scope, productId);
  if (productId !== undefined) {
    const { status: _, ...besidesStatus } = others;
    if (status !== undefined && Object.values(besidesStatus).every((value) => value === undefined))
      return countProductWithStatus(scope, productId, status);
    if (filter.studentId !== undefined || filter.couponCode !== undefined) {
      // A student's orders are few, and a coupon's far fewer than a product's: walk those and ask each
      // whether it has a line of the product, rather than walk the product's lines.
      const row = await filtered(scope, others)
        .where(({ exists, selectFrom }) => exists(ofProduct(selectFrom, scope, productId)))
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    return countProductLines(scope, productId, filter);
  }
  if ((filter.from !== undefined || filter.to !== undefined) && filter.couponCode === undefined && filter.studentId === undefined) {
    // A time range (with or without a status): as the orders summary adds it up, from the sums the orders'
    // triggers keep per day and hour and the orders of its ragged ends, not every order of the range.
    const parts = await summedRange(scope, filter.from ?? 0, filter.to ?? Number.MAX_SAFE_INTEGER, UNITS);
    return parts.reduce((n, part) => (status === undefined || part.status === status ? n + Number(part.n) : n), 0);
  }
  const row = Object.values(rest).every((value) => value === undefined)
    ? await scope.db
        .selectFrom('order_counts')
        .where('site_id', '=', scope.siteId)
        .$if(status !== undefined, (qb) => qb.where('status', '=', status ?? 'paid'))
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('n'))
        .executeTakeFirstOrThrow()
    : await filtered(scope, filter)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface OrderDetail extends OrderSummaryRow {
  lines: Array<{
    productType: ProductType;
    productId: string;
    title: string;
    quantity: number;
    unitPriceCents: number;
    amountCents: number;
  }>;
  payments: Array<{ id: string; amountCents: number; method: string; at: number }>;
  refunds: Array<{ id: string; amountCents: number; reason: string; at: number }>;
}

export async function findOrder(scope: SiteScope, id: string): Promise<OrderDetail | null> {
  const row = await withStudents(filtered(scope, {})).where('o.id', '=', id).select(COLUMNS).executeTakeFirst();
  if (!row) return null;
  const [lines, payments, refunds] = await Promise.all([
    scope.db.selectFrom('order_lines').selectAll().where('site_id', '=', scope.siteId).where('order_id', '=', id).orderBy('id').execute(),
    scope.db.selectFrom('payments').selectAll().where('site_id', '=', scope.siteId).where('order_id', '=', id).orderBy('at').execute(),
    scope.db.selectFrom('refunds').selectAll().where('site_id', '=', scope.siteId).where('order_id', '=', id).orderBy('at').execute(),
  ]);
  return {
    ...toSummary(row),
    lines: lines.map((l) => ({
      productType: l.product_type,
      productId: l.product_id,
      title: l.title,
      quantity: Number(l.quantity),
      unitPriceCents: Number(l.unit_price_cents),
      amountCents: Number(l.amount_cents),
    })),
    payments: payments.map((p) => ({ id: p.id, amountCents: Number(p.amount_cents), method: p.method, at: Number(p.at) })),
    refunds: refunds.map((r) => ({ id: r.id, amountCents: Number(r.amount_cents), reason: r.reason, at: Number(r.at) })),
  };
}

export interface OrdersSummary {
  orders: number;
  grossCents: number;
  discountCents: number;
  refundedCents: number;
  netCents: number;
  averageOrderCents: number;
  byStatus: Record<OrderStatus, number>;
}

/** The units whose sums the orders' triggers keep (migration 021), largest first, in milliseconds. */
const UNITS = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
] as const;
type Unit = (typeof UNITS)[number][0];

interface StatusSums {
  status: OrderStatus;
  n: number | string;
  total: number | string | null;
  discount: number | string | null;
  refunded: number | string | null;
}

/** The orders of [from, to) summed by status, from the orders themselves. */
function summedOrders(scope: SiteScope, from: number, to: number): Promise<StatusSums[]> {
  return filtered(scope, { from, to })
    .groupBy('o.status')
    .select((eb) => [
      'o.status',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>('o.total_cents').as('total'),
      eb.fn.sum<number | string | null>('o.discount_cents').as('discount'),
      eb.fn.sum<number | string | null>('o.refunded_cents').as('refunded'),
    ])
    .execute();
}

/** The orders of the whole buckets [first, last) of a unit summed by status, from the kept sums. */
function summedBuckets(scope: SiteScope, unit: Unit, first: number, last: number): Promise<StatusSums[]> {
  return scope.db
    .selectFrom('order_sums')
    .where('site_id', '=', scope.siteId)
    .where('unit', '=', unit)
    .where('bucket', '>=', first)
    .where('bucket', '<', last)
    .groupBy('status')
    .select((eb) => [
      eb.ref('status').$castTo<OrderStatus>().as('status'),
      eb.fn.sum<number | string>('n').as('n'),
      eb.fn.sum<number | string | null>('total_cents').as('total'),
      eb.fn.sum<number | string | null>('discount_cents').as('discount'),
      eb.fn.sum<number | string | null>('refunded_cents').as('refunded'),
    ])
    .execute();
}

/**
 * [from, to) summed by status: its whole days from the kept day sums, the whole hours left at either end
 * from the hour sums, and only what is left then (under an hour at each end) from the orders.
 */
async function summedRange(scope: SiteScope, from: number, to: number, units: readonly (typeof UNITS)[number][]): Promise<StatusSums[]> {
  if (from >= to) return [];
  const [unit, ...smaller] = units;
  if (!unit) return summedOrders(scope, from, to);
  const [name, ms] = unit;
  const first = Math.ceil(from / ms);
  const last = Math.floor(to / ms);
  if (first >= last) return summedRange(scope, from, to, smaller);
  return [
    ...(await summedBuckets(scope, name, first, last)),
    ...(await summedRange(scope, from, first * ms, smaller)),
    ...(await summedRange(scope, last * ms, to, smaller)),
  ];
}

/**
 * Totals of the orders placed in [from, to), from the sums that the orders' triggers keep per day and hour
 * and the orders of the range's ragged ends: a year at a million orders reads about 400 sum rows and not
 * every order.
 */
export async function summarizeOrders(scope: SiteScope, from: number, to: number): Promise<OrdersSummary> {
  const parts = await summedRange(scope, from, to, UNITS);
  const byStatus: Record<OrderStatus, number> = { paid: 0, partially_refunded: 0, refunded: 0 };
  let orders = 0;
  let gross = 0;
  let discount = 0;
  let refunded = 0;
  for (const r of parts) {
    byStatus[r.status] += Number(r.n);
    orders += Number(r.n);
    gross += Number(r.total ?? 0);
    discount += Number(r.discount ?? 0);
    refunded += Number(r.refunded ?? 0);
  }
  return {
    orders,
    grossCents: gross,
    discountCents: discount,
    refundedCents: refunded,
    netCents: gross - refunded,
    averageOrderCents: orders === 0 ? 0 : Math.round(gross / orders),
    byStatus,
  };
}
