// Operator operations of the analytics family (CONTRACT 6 analytics, scope analytics:read): numbers from
// the real order, enrollment and progress records through the daily roll-ups, in the site's time zone.
// The tools answer aggregates, not rosters, where the question is about numbers.
import { z } from 'zod';
import { atRiskLearners, courseAnalytics, type Figures, overview, timeseries } from '../../school/analytics.repository.js';
import { dayNumber, dayString } from '../../kernel/calendar-days.js';
import { localDay } from '../../school/rollups.js';
import { DEFAULT_SETTINGS, readSettings } from '../../school/settings.repository.js';
import { instantOrNull, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const DAY = z.iso.date().describe('A day, YYYY-MM-DD, in the school’s time zone (inclusive).');
const MAX_DAYS = 1100;
const DEFAULT_DAYS = 30;

/** The requested range of local days, defaulting to the last 30 days up to today. */
async function range(ctx: OperationContext, input: { from?: string | undefined; to?: string | undefined }) {
  const settings = await readSettings(siteScope(ctx));
  const zone = settings?.timeZone ?? DEFAULT_SETTINGS.timeZone;
  const currency = settings?.currency ?? DEFAULT_SETTINGS.currency;
  const today = localDay(ctx.clock.now(), zone);
  const to = input.to ?? today;
  const from = input.from ?? dayString(dayNumber(to) - DEFAULT_DAYS + 1);
  const days = dayNumber(to) - dayNumber(from) + 1;
  if (days < 1) throw new OperationError('invalid_argument', 'from must be on or before to.', [{ pointer: '/from', detail: 'after to' }]);
  if (days > MAX_DAYS)
    throw new OperationError('invalid_argument', `A range may span at most ${MAX_DAYS} days.`, [
      { pointer: '/from', detail: 'range too long' },
    ]);
  return { from, to, zone, currency };
}

const figures = z.object({
  revenueCents: z.number().int().describe('Paid order totals, in minor units of the school’s currency.'),
  refundsCents: z.number().int(),
  orders: z.number().int(),
  newEnrollments: z.number().int(),
  completions: z.number().int(),
  activeLearners: z.number().int().describe('Distinct learners with any learning activity in the period.'),
});

export const getSchoolOverview = defineOperation({
  name: 'get_school_overview',
  title: 'School overview',
  description:
    'Revenue, refunds, orders, new enrollments, completions and active learners for a range of days (default: the last 30), each with the ' +
    'previous period of the same length and the change in percent. Days are the school’s local days.',
  audience: 'operator',
  scopes: ['analytics:read'],
  rest: { method: 'GET', path: '/analytics/overview' },
  input: z.object({ from: DAY.optional(), to: DAY.optional() }),
  output: z.object({
    from: z.string(),
    to: z.string(),
    timeZone: z.string(),
    currency: z.string(),
    current: figures,
    previous: figures.extend({ from: z.string(), to: z.string() }),
    changePercent: z
      .record(z.string(), z.number().nullable())
      .describe('Per figure: (current − previous) / previous × 100; null when previous is 0.'),
  }),
  annotations: READ_ONLY,
  async handle(ctx, input) {
    const { from, to, zone, currency } = await range(ctx, input);
    const result = await overview(siteScope(ctx), from, to);
    const change = Object.fromEntries(
      (Object.keys(result.current) as Array<keyof Figures>).map((k) => {
        const before = result.previous[k];
        return [k, before === 0 ? null : Math.round(((result.current[k] - before) / before) * 1000) / 10];
      }),
    );
    return {
      from,
      to,
      timeZone: zone,
      currency,
      current: result.current,
      previous: { ...result.previous, from: result.previousFrom, to: result.previousTo },
      changePercent: change,
    };
  },
});

const METRICS = ['revenue', 'refunds', 'orders', 'new_enrollments', 'completions', 'active_learners'] as const;

/** Names for grouped series keys: course titles and product titles. */
async function labels(ctx: OperationContext, keys: readonly string[]): Promise<Map<string, string>> {
  const ids = keys.map((k) => k.split(':').at(-1) ?? '').filter(Boolean);
  const out = new Map<string, string>();
  if (ids.length === 0) return out;
  const [courses, products] = await Promise.all([
    ctx.db.selectFrom('courses').select(['id', 'title']).where('site_id', '=', ctx.site.id).where('id', 'in', ids).execute(),
    ctx.db.selectFrom('digital_products').select(['id', 'title']).where('site_id', '=', ctx.site.id).where('id', 'in', ids).execute(),
  ]);
  const titles = new Map([...courses, ...products].map((r) => [r.id, r.title]));
  for (const k of keys) out.set(k, titles.get(k.split(':').at(-1) ?? '') ?? k);
  return out;
}

export const getMetricTimeseries = defineOperation({
  name: 'get_metric_timeseries',
  title: 'Metric over time',
  description:
    'One metric (revenue, refunds, orders, new_enrollments, completions, active_learners) per day, week (from Monday) or month over a range ' +
    'of days (default: the last 30), every bucket present. groupBy course or product splits revenue, orders, new_enrollments or ' +
    'completions into one series per course or product.',
  audience: 'operator',
  scopes: ['analytics:read'],
  rest: { method: 'GET', path: '/analytics/timeseries' },
  input: z.object({
    metric: z.enum(METRICS),
    from: DAY.optional(),
    to: DAY.optional(),
    interval: z.enum(['day', 'week', 'month']).optional().describe('day when omitted.'),
    groupBy: z.enum(['course', 'product']).optional(),
  }),
  output: z.object({
    metric: z.string(),
    interval: z.string(),
    from: z.string(),
    to: z.string(),
    timeZone: z.string(),
    series: z.array(
      z.object({
        key: z.string().describe('"total", or course:<id> / product:<type>:<id> when grouped.'),
        label: z.string(),
        points: z.array(z.object({ start: z.string().describe('First day of the bucket.'), value: z.number() })),
      }),
    ),
  }),
  annotations: READ_ONLY,
  userContent: ['series[].label'],
  async handle(ctx, input) {
    const { from, to, zone } = await range(ctx, input);
    const interval = input.interval ?? 'day';
    if (input.groupBy && (input.metric === 'active_learners' || input.metric === 'refunds'))
      throw new OperationError('invalid_argument', `${input.metric} cannot be grouped; leave out groupBy.`, [
        { pointer: '/groupBy', detail: 'not for this metric' },
      ]);
    if (input.groupBy === 'course' && (input.metric === 'revenue' || input.metric === 'orders'))
      throw new OperationError('invalid_argument', `${input.metric} is grouped by product (courses are products).`, [
        { pointer: '/groupBy', detail: 'use product' },
      ]);
    if (input.groupBy === 'product' && (input.metric === 'new_enrollments' || input.metric === 'completions'))
      throw new OperationError('invalid_argument', `${input.metric} is grouped by course.`, [
        { pointer: '/groupBy', detail: 'use course' },
      ]);
    const series = await timeseries(siteScope(ctx), input.metric, from, to, interval, input.groupBy);
    const names = await labels(ctx, series.map((s) => s.key).filter(Boolean));
    return {
      metric: input.metric,
      interval,
      from,
      to,
      timeZone: zone,
      series: series.map((s) => ({
        key: s.key === '' ? 'total' : s.key,
        label: s.key === '' ? 'Total' : (names.get(s.key) ?? s.key),
        points: s.points,
      })),
    };
  },
});

export const getCourseAnalytics = defineOperation({
  name: 'get_course_analytics',
  title: 'Course analytics',
  description:
    'One course in numbers: enrolled, started, completed, completion rate, average progress, and the lecture where most learners who have ' +
    'not finished stopped.',
  audience: 'operator',
  scopes: ['analytics:read'],
  rest: { method: 'GET', path: '/analytics/courses/{id}' },
  input: z.object({ id: z.string().min(1).max(64).describe('The course id.') }),
  output: z.object({
    courseId: z.string(),
    enrolled: z.number().int(),
    started: z.number().int(),
    completed: z.number().int(),
    completionRate: z.number().describe('completed / enrolled, 0 to 1.'),
    averageProgressPercent: z.number().int(),
    dropOff: z.object({ lectureId: z.string(), title: z.string(), learners: z.number().int() }).nullable(),
  }),
  annotations: READ_ONLY,
  userContent: ['dropOff.title'],
  async handle(ctx, input) {
    const result = await courseAnalytics(siteScope(ctx), input.id);
    if (!result) throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
    return { courseId: input.id, ...result };
  },
});

export const listAtRiskLearners = defineOperation({
  name: 'list_at_risk_learners',
  title: 'Learners at risk',
  description:
    'Enrollments with access and not completed whose learner has been inactive for inactiveDays (or never started), or whose access ends ' +
    'within expiringWithinDays; longest inactive first, each with the reasons. Give at least one of the two. Paged with a total.',
  audience: 'operator',
  scopes: ['analytics:read'],
  rest: { method: 'GET', path: '/analytics/at_risk_learners' },
  input: z.object({
    ...pageInput,
    inactiveDays: z.number().int().min(1).max(3650).optional(),
    expiringWithinDays: z.number().int().min(1).max(3650).optional(),
  }),
  output: z.object(
    pagedOutput(
      z.object({
        enrollmentId: z.string(),
        studentId: z.string(),
        studentName: z.string(),
        courseId: z.string(),
        courseTitle: z.string(),
        lastActivityAt: instantOrNull('The learner’s last activity in the course; null when never'),
        accessExpiresAt: instantOrNull('When access ends; null when it does not'),
        reasons: z.array(z.enum(['inactive', 'expiring'])),
      }),
      'learners at risk',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].studentName', 'items[].courseTitle'],
  async handle(ctx, input) {
    if (input.inactiveDays === undefined && input.expiringWithinDays === undefined)
      throw new OperationError('invalid_argument', 'Give inactiveDays, expiringWithinDays or both.', [
        { pointer: '/inactiveDays', detail: 'required' },
      ]);
    const { page, total } = await atRiskLearners(
      siteScope(ctx),
      { inactiveDays: input.inactiveDays, expiringWithinDays: input.expiringWithinDays },
      pageRequest(input),
      ctx.clock.now(),
    );
    return paged(page, total, (a) => ({
      ...a,
      lastActivityAt: isoOrNull(a.lastActivityAt),
      accessExpiresAt: isoOrNull(a.accessExpiresAt),
    }));
  },
});

export const ANALYTICS_OPERATIONS: readonly Operation[] = [getSchoolOverview, getMetricTimeseries, getCourseAnalytics, listAtRiskLearners];
