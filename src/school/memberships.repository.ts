// Membership plans and the subscriptions to them, as operators manage them (CONTRACT 6 membership_plans and
// subscriptions). A subscription's status is a function of its stored moments and `now`, written once
// here for reads and for the list filter alike, so a period that ran out needs no job to flip a flag.
import { randomUUID } from 'node:crypto';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ProductType } from '../storage/school-schema.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

export type BillingInterval = 'month' | 'year' | 'one_time';

export interface PlanProduct {
  type: ProductType;
  id: string;
}

export interface MembershipPlan {
  id: string;
  name: string;
  description: string;
  priceCents: number;
  currency: string;
  interval: BillingInterval;
  accessDays: number | null;
  products: PlanProduct[];
  activeSubscriptions: number;
  archivedAt: number | null;
  createdAt: number;
  updatedAt: number | null;
}

export interface PlanFields {
  name: string;
  description: string;
  priceCents: number;
  currency: string;
  interval: BillingInterval;
  accessDays: number | null;
  products: readonly PlanProduct[];
}

const PLANS = 'operator_membership_plans';
const PLAN_COLUMNS = [
  'id',
  'name',
  'description',
  'price_cents',
  'currency',
  'billing_interval',
  'access_days',
  'archived_at',
  'created_at',
  'updated_at',
] as const;

interface PlanRow {
  id: string;
  name: string;
  description: string;
  price_cents: number;
  currency: string;
  billing_interval: string;
  access_days: number | null;
  archived_at: number | null;
  created_at: number;
  updated_at: number | null;
}

const num = (v: number | null) => (v === null ? null : Number(v));

export type SubscriptionStatus = 'active' | 'cancelling' | 'past_due' | 'ended';

type SubscriptionsEb = ExpressionBuilder<Database, 'subscriptions'>;

/** The one definition of each status at `now`, as a condition on a subscriptions row. */
function statusIs(eb: SubscriptionsEb, status: SubscriptionStatus, now: number): Expression<SqlBool> {
  const open = eb('ended_at', 'is', null);
  switch (status) {
    case 'ended':
      return eb.or([eb('ended_at', 'is not', null), eb.and([eb('cancel_at_period_end', '=', 1), eb('current_period_end', '<=', now)])]);
    case 'cancelling':
      return eb.and([open, eb('cancel_at_period_end', '=', 1), eb('current_period_end', '>', now)]);
    case 'past_due':
      return eb.and([open, eb('cancel_at_period_end', '=', 0), eb('current_period_end', '<=', now)]);
    case 'active':
      return eb.and([open, eb('cancel_at_period_end', '=', 0), eb('current_period_end', '>', now)]);
  }
}

/** The same rule over a row already read. */
export function subscriptionStatus(
  row: { endedAt: number | null; cancelAtPeriodEnd: boolean; currentPeriodEnd: number },
  now: number,
): SubscriptionStatus {
  if (row.endedAt !== null || (row.cancelAtPeriodEnd && row.currentPeriodEnd <= now)) return 'ended';
  if (row.cancelAtPeriodEnd) return 'cancelling';
  return row.currentPeriodEnd <= now ? 'past_due' : 'active';
}

/** Products and running subscriptions of a page of plans, two queries whatever the page size. */
async function completePlans(scope: SiteScope, rows: readonly PlanRow[], now: number): Promise<MembershipPlan[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [products, running] = await Promise.all([
    scope.db
      .selectFrom('plan_products')
      .select(['plan_id', 'product_type', 'product_id'])
      .where('site_id', '=', scope.siteId)
      .where('plan_id', 'in', ids)
      .orderBy('product_type')
      .orderBy('product_id')
      .execute(),
    scope.db
      .selectFrom('subscriptions')
      .where('site_id', '=', scope.siteId)
      .where('plan_id', 'in', ids)
      .where((eb) => eb.or([statusIs(eb, 'active', now), statusIs(eb, 'cancelling', now), statusIs(eb, 'past_due', now)]))
      .groupBy('plan_id')
      .select((eb) => ['plan_id', eb.fn.countAll().as('n')])
      .execute(),
  ]);
  const byPlan = new Map<string, PlanProduct[]>();
  for (const p of products) byPlan.set(p.plan_id, [...(byPlan.get(p.plan_id) ?? []), { type: p.product_type, id: p.product_id }]);
  const counts = new Map(running.map((r) => [r.plan_id, Number(r.n)]));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    priceCents: Number(row.price_cents),
    currency: row.currency,
    interval: row.billing_interval as BillingInterval,
    accessDays: num(row.access_days),
    products: byPlan.get(row.id) ?? [],
    activeSubscriptions: counts.get(row.id) ?? 0,
    archivedAt: num(row.archived_at),
    createdAt: Number(row.created_at),
    updatedAt: num(row.updated_at),
  }));
}

export async function listPlans(scope: SiteScope, request: PageRequest, now: number): Promise<Page<MembershipPlan>> {
  const { size, after } = pageQuery(PLANS, request);
  const rows = await scope.db
    .selectFrom('membership_plans')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(PLAN_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(PLANS, await completePlans(scope, rows, now), size, (p) => ({ sort: p.createdAt, id: p.id }));
}

export async function countPlans(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('membership_plans')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findPlan(scope: SiteScope, id: string, now: number): Promise<MembershipPlan | null> {
  const row = await scope.db
    .selectFrom('membership_plans')
    .select(PLAN_COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return (await completePlans(scope, [row], now))[0] ?? null;
}

async function writePlanProducts(scope: SiteScope, planId: string, products: readonly PlanProduct[]): Promise<void> {
  await scope.db.deleteFrom('plan_products').where('site_id', '=', scope.siteId).where('plan_id', '=', planId).execute();
  if (products.length === 0) return;
  await scope.db
    .insertInto('plan_products')
    .values(products.map((p) => ({ plan_id: planId, site_id: scope.siteId, product_type: p.type, product_id: p.id })))
    .execute();
}

export async function createPlan(scope: SiteScope, fields: PlanFields, now: number): Promise<MembershipPlan | null> {
  const id = `pln_${randomUUID()}`;
  await scope.db
    .insertInto('membership_plans')
    .values({
      id,
      site_id: scope.siteId,
      name: fields.name,
      description: fields.description,
      price_cents: fields.priceCents,
      currency: fields.currency,
      billing_interval: fields.interval,
      access_days: fields.accessDays,
      archived_at: null,
      created_at: now,
      updated_at: null,
    })
    .execute();
  await writePlanProducts(scope, id, fields.products);
  return findPlan(scope, id, now);
}

export async function updatePlan(scope: SiteScope, id: string, changes: Partial<PlanFields>, now: number): Promise<MembershipPlan | null> {
  const result = await scope.db
    .updateTable('membership_plans')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.priceCents !== undefined ? { price_cents: changes.priceCents } : {}),
      ...(changes.currency !== undefined ? { currency: changes.currency } : {}),
      ...(changes.interval !== undefined ? { billing_interval: changes.interval } : {}),
      ...(changes.accessDays !== undefined ? { access_days: changes.accessDays } : {}),
      updated_at: now,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  if (changes.products !== undefined) await writePlanProducts(scope, id, changes.products);
  return findPlan(scope, id, now);
}

/** Archives a plan: no new subscriptions; the running ones go on untouched. Archiving twice keeps the first moment. */
export async function archivePlan(scope: SiteScope, id: string, now: number): Promise<MembershipPlan | null> {
  await scope.db
    .updateTable('membership_plans')
    .set({ archived_at: now, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .execute();
  return findPlan(scope, id, now);
}

export interface Subscription {
  id: string;
  studentId: string;
  studentName: string;
  studentEmail: string;
  planId: string;
  planName: string;
  startedAt: number;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  cancelledAt: number | null;
  endedAt: number | null;
}

export interface SubscriptionFilter {
  status?: SubscriptionStatus | undefined;
  planId?: string | undefined;
  studentId?: string | undefined;
}

const SUBSCRIPTIONS = 'operator_subscriptions';

function subscriptionsOf(scope: SiteScope, filter: SubscriptionFilter, now: number) {
  return scope.db
    .selectFrom('subscriptions')
    .where('subscriptions.site_id', '=', scope.siteId)
    .$if(filter.planId !== undefined, (qb) => qb.where('subscriptions.plan_id', '=', filter.planId ?? ''))
    .$if(filter.studentId !== undefined, (qb) => qb.where('subscriptions.person_id', '=', filter.studentId ?? ''))
    .$if(filter.status !== undefined, (qb) => qb.where((eb) => statusIs(eb, filter.status ?? 'active', now)));
}

const SUBSCRIPTION_COLUMNS = [
  'subscriptions.id',
  'subscriptions.person_id',
  'p.name as person_name',
  'p.email as person_email',
  'subscriptions.plan_id',
  'm.name as plan_name',
  'subscriptions.started_at',
  'subscriptions.current_period_end',
  'subscriptions.cancel_at_period_end',
  'subscriptions.cancelled_at',
  'subscriptions.ended_at',
] as const;

function toSubscription(row: {
  id: string;
  person_id: string;
  person_name: string;
  person_email: string;
  plan_id: string;
  plan_name: string;
  started_at: number;
  current_period_end: number;
  cancel_at_period_end: number;
  cancelled_at: number | null;
  ended_at: number | null;
}): Subscription {
  return {
    id: row.id,
    studentId: row.person_id,
    studentName: row.person_name,
    studentEmail: row.person_email,
    planId: row.plan_id,
    planName: row.plan_name,
    startedAt: Number(row.started_at),
    currentPeriodEnd: Number(row.current_period_end),
    cancelAtPeriodEnd: row.cancel_at_period_end === 1,
    cancelledAt: num(row.cancelled_at),
    endedAt: num(row.ended_at),
  };
}

/** Subscriptions, newest first, with the student and plan named. */
export async function listSubscriptions(
  scope: SiteScope,
  filter: SubscriptionFilter,
  request: PageRequest,
  now: number,
): Promise<Page<Subscription>> {
  const { size, after } = pageQuery(SUBSCRIPTIONS, request);
  const rows = await subscriptionsOf(scope, filter, now)
    .innerJoin('people as p', 'p.id', 'subscriptions.person_id')
    .innerJoin('membership_plans as m', 'm.id', 'subscriptions.plan_id')
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('subscriptions.started_at', '<', after!.sort),
          eb.and([eb('subscriptions.started_at', '=', after!.sort), eb('subscriptions.id', '<', after!.id)]),
        ]),
      ),
    )
    .select(SUBSCRIPTION_COLUMNS)
    .orderBy('subscriptions.started_at', 'desc')
    .orderBy('subscriptions.id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(SUBSCRIPTIONS, rows.map(toSubscription), size, (s) => ({ sort: s.startedAt, id: s.id }));
}

export async function countSubscriptions(scope: SiteScope, filter: SubscriptionFilter, now: number): Promise<number> {
  const row = await subscriptionsOf(scope, filter, now)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findSubscription(scope: SiteScope, id: string): Promise<Subscription | null> {
  const row = await scope.db
    .selectFrom('subscriptions')
    .innerJoin('people as p', 'p.id', 'subscriptions.person_id')
    .innerJoin('membership_plans as m', 'm.id', 'subscriptions.plan_id')
    .where('subscriptions.site_id', '=', scope.siteId)
    .where('subscriptions.id', '=', id)
    .select(SUBSCRIPTION_COLUMNS)
    .executeTakeFirst();
  return row ? toSubscription(row) : null;
}

/** Ends a running subscription now, or sets it to end with its current period. */
export async function cancelSubscription(scope: SiteScope, id: string, immediately: boolean, now: number): Promise<boolean> {
  const result = await scope.db
    .updateTable('subscriptions')
    .set(immediately ? { ended_at: now, cancelled_at: now, cancel_at_period_end: 0 } : { cancel_at_period_end: 1, cancelled_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or(
        immediately
          ? [statusIs(eb, 'active', now), statusIs(eb, 'cancelling', now), statusIs(eb, 'past_due', now)]
          : [statusIs(eb, 'active', now), statusIs(eb, 'past_due', now)],
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Takes back a cancellation at period end, while the period runs. */
export async function resumeSubscription(scope: SiteScope, id: string, now: number): Promise<boolean> {
  const result = await scope.db
    .updateTable('subscriptions')
    .set({ cancel_at_period_end: 0, cancelled_at: null })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .where((eb) => statusIs(eb, 'cancelling', now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
