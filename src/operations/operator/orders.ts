// Operator operations of the orders family (CONTRACT 6 orders, scope orders:read): lists with filters,
// one order with its lines, payments and refunds, and a summary over a range.
import { z } from 'zod';
import { findOrder, type OrderSummaryRow, pageOrders, countOrders, summarizeOrders } from '../../school/orders.repository.js';
import { localMidnight, siteTimeZone } from '../../school/rollups.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { ORDER_STATUSES } from '../../storage/school-schema.js';
import { siteScope } from './site-scope.js';

const STATUS = z.enum(ORDER_STATUSES);
const when = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('An instant (ISO 8601), or a day (YYYY-MM-DD) meaning its start in the school’s time zone.');

const order = z.object({
  id: z.string(),
  number: z.number().int(),
  studentId: z.string(),
  studentName: z.string(),
  status: STATUS,
  currency: z.string(),
  subtotalCents: z.number().int(),
  discountCents: z.number().int(),
  totalCents: z.number().int(),
  refundedCents: z.number().int(),
  couponCode: z.string().nullable(),
  createdAt: instant('When the order was placed'),
  paidAt: instantOrNull('When it was paid'),
});

function orderOut(o: OrderSummaryRow): z.output<typeof order> {
  return { ...o, createdAt: iso(o.createdAt), paidAt: isoOrNull(o.paidAt) };
}

/** An instant from a `when` input: a day is the start of that day in the school's time zone. */
async function instantOf(ctx: OperationContext, value: string | undefined): Promise<number | undefined> {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return localMidnight(value, await siteTimeZone(ctx.db, ctx.site.id));
  return Date.parse(value);
}

export const listOrders = defineOperation({
  name: 'list_orders',
  title: 'List orders',
  description:
    'Orders of this school, newest first, filtered by status, placed from/to, productId (a course or product id), couponCode or studentId. ' +
    'Paged with a total and a nextCursor. For totals over a range, use the orders summary or get_school_overview.',
  audience: 'operator',
  scopes: ['orders:read'],
  rest: { method: 'GET', path: '/orders' },
  input: z.object({
    ...pageInput,
    status: STATUS.optional(),
    from: when.optional().describe('Placed at or after.'),
    to: when.optional().describe('Placed before.'),
    productId: z.string().min(1).max(64).optional(),
    couponCode: z.string().min(1).max(64).optional(),
    studentId: z.string().min(1).max(64).optional(),
  }),
  output: z.object(pagedOutput(order, 'orders')),
  annotations: READ_ONLY,
  userContent: ['items[].studentName'],
  async handle(ctx, input) {
    const filter = {
      status: input.status,
      from: await instantOf(ctx, input.from),
      to: await instantOf(ctx, input.to),
      productId: input.productId,
      couponCode: input.couponCode,
      studentId: input.studentId,
    };
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([pageOrders(scope, filter, pageRequest(input)), countOrders(scope, filter)]);
    return paged(page, total, orderOut);
  },
});

export const getOrder: Operation = defineOperation({
  name: 'get_order',
  title: 'Get an order',
  description: 'One order with its lines, payments and refunds.',
  audience: 'operator',
  scopes: ['orders:read'],
  rest: { method: 'GET', path: '/orders/{id}', resource: () => getOrder },
  tool: false,
  input: z.object({ id: z.string().min(1).max(64) }),
  output: z.object({
    order: order.extend({
      lines: z.array(
        z.object({
          productType: z.enum(['course', 'digital_product']),
          productId: z.string(),
          title: z.string(),
          quantity: z.number().int(),
          unitPriceCents: z.number().int(),
          amountCents: z.number().int(),
        }),
      ),
      payments: z.array(z.object({ id: z.string(), amountCents: z.number().int(), method: z.string(), at: instant('When it was paid') })),
      refunds: z.array(
        z.object({ id: z.string(), amountCents: z.number().int(), reason: z.string(), at: instant('When it was refunded') }),
      ),
    }),
  }),
  annotations: READ_ONLY,
  userContent: ['order.studentName', 'order.lines[].title', 'order.refunds[].reason'],
  async handle(ctx, input) {
    const found = await findOrder(siteScope(ctx), input.id);
    if (!found) throw new OperationError('not_found', `This school has no order with the id ${input.id}.`);
    return {
      order: {
        ...orderOut(found),
        lines: found.lines,
        payments: found.payments.map((p) => ({ ...p, at: iso(p.at) })),
        refunds: found.refunds.map((r) => ({ ...r, at: iso(r.at) })),
      },
    };
  },
});

export const getOrdersSummary = defineOperation({
  name: 'get_orders_summary',
  title: 'Orders summary',
  description: 'Totals of the orders placed in a range: count, gross, discounts, refunds, net, average order value, and counts by status.',
  audience: 'operator',
  scopes: ['orders:read'],
  rest: { method: 'GET', path: '/orders/summary' },
  tool: false,
  input: z.object({ from: when, to: when }),
  output: z.object({
    from: instant('Start of the range'),
    to: instant('End of the range (exclusive)'),
    orders: z.number().int(),
    grossCents: z.number().int(),
    discountCents: z.number().int(),
    refundedCents: z.number().int(),
    netCents: z.number().int(),
    averageOrderCents: z.number().int(),
    byStatus: z.object({ paid: z.number().int(), partially_refunded: z.number().int(), refunded: z.number().int() }),
  }),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    const from = (await instantOf(ctx, input.from)) ?? 0;
    const to = (await instantOf(ctx, input.to)) ?? 0;
    if (!(from < to))
      throw new OperationError('invalid_argument', 'from must be before to.', [{ pointer: '/from', detail: 'not before to' }]);
    return { from: iso(from), to: iso(to), ...(await summarizeOrders(siteScope(ctx), from, to)) };
  },
});

export const ORDER_OPERATIONS: readonly Operation[] = [listOrders, getOrdersSummary, getOrder];
