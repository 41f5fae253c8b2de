// Operator operations of the membership_plans and subscriptions families (CONTRACT 6): plans with their
// price, interval, access length and included products, archived rather than deleted (subscribers keep
// what they have); subscriptions listed by status, plan and student, cancelled now or at the period's
// end (through MCP after a confirmation), resumed before the end.
import { z } from 'zod';
import {
  archivePlan,
  cancelSubscription,
  countPlans,
  countSubscriptions,
  createPlan,
  findPlan,
  findSubscription,
  listPlans,
  listSubscriptions,
  type MembershipPlan,
  resumeSubscription,
  type Subscription,
  subscriptionStatus,
  updatePlan,
} from '../../school/memberships.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { checkProducts, productRef, productsInput } from './products.js';
import { siteScope } from './site-scope.js';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const planId = z.string().min(1).max(64).describe('The membership plan id (pln_…).');
const subscriptionId = z.string().min(1).max(64).describe('The subscription id (sub_…).');
const INTERVALS = ['month', 'year', 'one_time'] as const;

const operatorPlan = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  priceCents: z.number().int().describe('Price per interval in minor units of currency.'),
  currency: z.string(),
  interval: z.enum(INTERVALS).describe('How often it is paid: every month, every year, or once.'),
  accessDays: z.number().int().nullable().describe('Days of access a payment gives; null: while subscribed (one_time: for good).'),
  products: z.array(productRef).describe('The courses and digital products the plan includes.'),
  activeSubscriptions: z.number().int().describe('Subscriptions that have not ended.'),
  state: z.enum(['active', 'archived']).describe('archived: no new subscriptions; existing subscribers keep access.'),
  archivedAt: instantOrNull('When it was archived; null unless archived'),
  createdAt: instant('When it was created'),
  updatedAt: instantOrNull('When an operator last changed it; null when never'),
});

function planOut(plan: MembershipPlan): z.output<typeof operatorPlan> {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    priceCents: plan.priceCents,
    currency: plan.currency,
    interval: plan.interval,
    accessDays: plan.accessDays,
    products: plan.products,
    activeSubscriptions: plan.activeSubscriptions,
    state: plan.archivedAt === null ? 'active' : 'archived',
    archivedAt: isoOrNull(plan.archivedAt),
    createdAt: iso(plan.createdAt),
    updatedAt: isoOrNull(plan.updatedAt),
  };
}

const PLAN_TEXT = ['plan.name', 'plan.description'];

async function planOr404(ctx: OperationContext, id: string): Promise<MembershipPlan> {
  const plan = await findPlan(siteScope(ctx), id, ctx.clock.now());
  if (!plan) throw new OperationError('not_found', `This school has no membership plan with the id ${id}.`);
  return plan;
}

export const listPlansOperation = defineOperation({
  name: 'list_membership_plans',
  title: 'List membership plans',
  description: 'The school’s membership plans, newest first, archived ones included, with how many subscriptions each has running.',
  audience: 'operator',
  scopes: ['membership_plans:read'],
  rest: { method: 'GET', path: '/membership_plans' },
  tool: false,
  input: z.object({ ...pageInput }),
  output: z.object(pagedOutput(operatorPlan, 'membership plans')),
  annotations: READ_ONLY,
  userContent: ['items[].name', 'items[].description'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listPlans(scope, pageRequest(input), ctx.clock.now()), countPlans(scope)]);
    return paged(page, total, planOut);
  },
});

export const getPlan: Operation = defineOperation({
  name: 'get_membership_plan',
  title: 'Get a membership plan',
  description: 'One membership plan by id.',
  audience: 'operator',
  scopes: ['membership_plans:read'],
  rest: { method: 'GET', path: '/membership_plans/{id}', resource: () => getPlan },
  tool: false,
  input: z.object({ id: planId }),
  output: z.object({ plan: operatorPlan }),
  annotations: READ_ONLY,
  userContent: PLAN_TEXT,
  async handle(ctx, input) {
    return { plan: planOut(await planOr404(ctx, input.id)) };
  },
});

const planFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  priceCents: z.number().int().min(0).max(100_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR'),
  interval: z.enum(INTERVALS),
  accessDays: z.number().int().min(1).max(36_500).nullable(),
  products: productsInput,
};

export const createPlanOperation = defineOperation({
  name: 'create_membership_plan',
  title: 'Create a membership plan',
  description: 'Creates a membership plan: a price per month, per year or once, how long a payment gives access, and what it includes.',
  audience: 'operator',
  scopes: ['membership_plans:write'],
  rest: { method: 'POST', path: '/membership_plans', status: 201 },
  tool: false,
  input: z.object({
    name: planFields.name.describe('Plan name, e.g. "All-access monthly".'),
    description: planFields.description.optional(),
    priceCents: planFields.priceCents.describe('Price per interval in minor units.'),
    currency: planFields.currency,
    interval: planFields.interval.describe('month, year or one_time.'),
    accessDays: planFields.accessDays.optional().describe('Days of access per payment; omitted: while subscribed (one_time: for good).'),
    products: planFields.products.describe('The courses and digital products it includes.'),
  }),
  output: z.object({ plan: operatorPlan }),
  annotations: WRITE,
  userContent: PLAN_TEXT,
  audit: (_input, output) => `membership_plan:${output.plan.id}`,
  async handle(ctx, input) {
    await checkProducts(ctx, input.products);
    const plan = await createPlan(
      siteScope(ctx),
      { ...input, description: input.description ?? '', accessDays: input.accessDays ?? null },
      ctx.clock.now(),
    );
    if (!plan) throw new Error('a membership plan just stored could not be read back');
    return { plan: planOut(plan) };
  },
});

export const updatePlanOperation = defineOperation({
  name: 'update_membership_plan',
  title: 'Edit a membership plan',
  description:
    'Changes the given fields of a plan (the others stay). A new price or interval applies to new subscriptions; running ones keep ' +
    'their terms until they renew.',
  audience: 'operator',
  scopes: ['membership_plans:write'],
  rest: { method: 'PATCH', path: '/membership_plans/{id}', resource: () => getPlan },
  tool: false,
  input: z.object({
    id: planId,
    name: planFields.name.optional(),
    description: planFields.description.optional(),
    priceCents: planFields.priceCents.optional(),
    currency: planFields.currency.optional(),
    interval: planFields.interval.optional(),
    accessDays: planFields.accessDays.optional(),
    products: planFields.products.optional(),
  }),
  output: z.object({ plan: operatorPlan }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: PLAN_TEXT,
  audit: (input) => `membership_plan:${input.id}`,
  async handle(ctx, input) {
    const { id, ...changes } = input;
    if (changes.products) await checkProducts(ctx, changes.products);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    const plan = await updatePlan(siteScope(ctx), id, defined, ctx.clock.now());
    if (!plan) throw new OperationError('not_found', `This school has no membership plan with the id ${id}.`);
    return { plan: planOut(plan) };
  },
});

export const archivePlanOperation = defineOperation({
  name: 'archive_membership_plan',
  title: 'Archive a membership plan',
  description: 'Stops new subscriptions to a plan; its running subscriptions go on and their subscribers keep access.',
  audience: 'operator',
  scopes: ['membership_plans:write'],
  rest: { method: 'POST', path: '/membership_plans/{id}/archive', resource: () => getPlan },
  tool: false,
  input: z.object({ id: planId }),
  output: z.object({ plan: operatorPlan }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  userContent: PLAN_TEXT,
  audit: (input) => `membership_plan:${input.id}`,
  async handle(ctx, input) {
    const plan = await archivePlan(siteScope(ctx), input.id, ctx.clock.now());
    if (!plan) throw new OperationError('not_found', `This school has no membership plan with the id ${input.id}.`);
    return { plan: planOut(plan) };
  },
});

const STATUSES = ['active', 'cancelling', 'past_due', 'ended'] as const;

const operatorSubscription = z.object({
  id: z.string(),
  studentId: z.string(),
  studentName: z.string(),
  studentEmail: z.string(),
  planId: z.string(),
  planName: z.string(),
  status: z.enum(STATUSES).describe('active; cancelling (ends with the current period); past_due (period over, not renewed); ended.'),
  startedAt: instant('When it started'),
  currentPeriodEnd: instant('When the current paid period ends'),
  cancelAtPeriodEnd: z.boolean(),
  cancelledAt: instantOrNull('When it was cancelled; null unless cancelled'),
  endedAt: instantOrNull('When it ended, if it was ended at once; null otherwise'),
});

function subscriptionOut(s: Subscription, now: number): z.output<typeof operatorSubscription> {
  return {
    id: s.id,
    studentId: s.studentId,
    studentName: s.studentName,
    studentEmail: s.studentEmail,
    planId: s.planId,
    planName: s.planName,
    status: subscriptionStatus(s, now),
    startedAt: iso(s.startedAt),
    currentPeriodEnd: iso(s.currentPeriodEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    cancelledAt: isoOrNull(s.cancelledAt),
    endedAt: isoOrNull(s.endedAt),
  };
}

async function subscriptionOr404(ctx: OperationContext, id: string): Promise<Subscription> {
  const subscription = await findSubscription(siteScope(ctx), id);
  if (!subscription) throw new OperationError('not_found', `This school has no subscription with the id ${id}.`);
  return subscription;
}

export const listSubscriptionsOperation = defineOperation({
  name: 'list_subscriptions',
  title: 'List subscriptions',
  description:
    'Subscriptions to the school’s membership plans, newest first, with student, plan and status; filter by status, planId or ' +
    'studentId. Paged with a total and a nextCursor: to count, read total with limit 1.',
  audience: 'operator',
  scopes: ['subscriptions:read'],
  rest: { method: 'GET', path: '/subscriptions' },
  input: z.object({
    ...pageInput,
    status: z.enum(STATUSES).optional().describe('Only subscriptions in this status.'),
    planId: z.string().min(1).max(64).optional().describe('Only subscriptions to this plan.'),
    studentId: z.string().min(1).max(64).optional().describe('Only this student’s subscriptions.'),
  }),
  output: z.object(pagedOutput(operatorSubscription, 'subscriptions')),
  annotations: READ_ONLY,
  userContent: ['items[].studentName', 'items[].planName'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const now = ctx.clock.now();
    const filter = { status: input.status, planId: input.planId, studentId: input.studentId };
    const [page, total] = await Promise.all([
      listSubscriptions(scope, filter, pageRequest(input), now),
      countSubscriptions(scope, filter, now),
    ]);
    return paged(page, total, (s) => subscriptionOut(s, now));
  },
});

export const getSubscription: Operation = defineOperation({
  name: 'get_subscription',
  title: 'Get a subscription',
  description: 'One subscription by id, with its student, plan and status.',
  audience: 'operator',
  scopes: ['subscriptions:read'],
  rest: { method: 'GET', path: '/subscriptions/{id}', resource: () => getSubscription },
  tool: false,
  input: z.object({ id: subscriptionId }),
  output: z.object({ subscription: operatorSubscription }),
  annotations: READ_ONLY,
  userContent: ['subscription.studentName', 'subscription.planName'],
  async handle(ctx, input) {
    return { subscription: subscriptionOut(await subscriptionOr404(ctx, input.id), ctx.clock.now()) };
  },
});

export const cancelSubscriptionOperation = defineOperation({
  name: 'cancel_subscription',
  title: 'Cancel a subscription',
  description:
    'Cancels a subscription at the end of its current period (the student keeps access until then), or at once with immediately: true. ' +
    'The first call answers a preview and a confirmationToken; call again with it to cancel.',
  audience: 'operator',
  scopes: ['subscriptions:write'],
  rest: { method: 'POST', path: '/subscriptions/{id}/cancel', resource: () => getSubscription },
  input: z.object({
    id: subscriptionId,
    immediately: z.boolean().optional().describe('End it now instead of at the end of the current period.'),
  }),
  output: z.object({ subscription: operatorSubscription }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  userContent: ['subscription.studentName', 'subscription.planName'],
  audit: (input) => `subscription:${input.id}`,
  async confirm(ctx, input) {
    const current = await subscriptionOr404(ctx, input.id);
    const when = input.immediately ? 'now' : `at the end of the current period (${iso(current.currentPeriodEnd)})`;
    return {
      summary: `End ${current.studentName}’s subscription to "${current.planName}" ${when}.`,
      details: { subscription: subscriptionOut(current, ctx.clock.now()) },
    };
  },
  async handle(ctx, input) {
    const now = ctx.clock.now();
    const current = await subscriptionOr404(ctx, input.id);
    if (!(await cancelSubscription(siteScope(ctx), input.id, input.immediately === true, now)))
      throw new OperationError(
        'conflict',
        `The subscription is ${subscriptionStatus(current, now)}: ${input.immediately ? 'it has already ended' : 'it is already set to end or has ended'}.`,
      );
    return { subscription: subscriptionOut(await subscriptionOr404(ctx, input.id), now) };
  },
});

export const resumeSubscriptionOperation = defineOperation({
  name: 'resume_subscription',
  title: 'Resume a subscription',
  description: 'Takes back a cancellation at period end while the period still runs; the subscription goes on as before.',
  audience: 'operator',
  scopes: ['subscriptions:write'],
  rest: { method: 'POST', path: '/subscriptions/{id}/resume', resource: () => getSubscription },
  tool: false,
  input: z.object({ id: subscriptionId }),
  output: z.object({ subscription: operatorSubscription }),
  annotations: { ...WRITE, idempotentHint: true },
  userContent: ['subscription.studentName', 'subscription.planName'],
  audit: (input) => `subscription:${input.id}`,
  async handle(ctx, input) {
    const now = ctx.clock.now();
    const current = await subscriptionOr404(ctx, input.id);
    if (!(await resumeSubscription(siteScope(ctx), input.id, now)))
      throw new OperationError(
        'conflict',
        `Only a subscription set to end with its period can resume; this one is ${subscriptionStatus(current, now)}.`,
      );
    return { subscription: subscriptionOut(await subscriptionOr404(ctx, input.id), now) };
  },
});

export const MEMBERSHIP_OPERATIONS: readonly Operation[] = [
  listPlansOperation,
  getPlan,
  createPlanOperation,
  updatePlanOperation,
  archivePlanOperation,
  listSubscriptionsOperation,
  getSubscription,
  cancelSubscriptionOperation,
  resumeSubscriptionOperation,
];
