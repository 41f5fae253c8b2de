// CONTRACT 6 analytics and orders (issue 9): figures computed from the real order, enrollment and
// progress records of the demo's year of history, in the school's time zone; the roll-ups kept in step
// by the writes equal a rebuild from the source records; orders filtered, read and summed. Over real HTTP
// on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeOrder, refundOrder } from '../../src/school/orders.repository.js';
import { rebuildRollups } from '../../src/school/rollups.js';
import { writeActivity } from '../../src/school/learner-activity.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, personId, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

interface Figures {
  revenueCents: number;
  refundsCents: number;
  orders: number;
  newEnrollments: number;
  completions: number;
  activeLearners: number;
}
interface Series {
  key: string;
  label: string;
  points: Array<{ start: string; value: number }>;
}

const DAY = 86_400_000;
const berlinDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(ms);
/**
 * The school's calendar day `days` days before today, counted in days of the calendar: `berlinDay(now - 89
 * * DAY)` is 88 days back in the last hour before midnight when the span crosses a change of summer time.
 */
const berlinDaysAgo = (days: number) => new Date(Date.parse(`${berlinDay(Date.now())}T00:00:00Z`) - days * DAY).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: analytics and orders (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let academyId: string;
    const get = (path: string) => call(server.academy, 'GET', path, operator);

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      academyId = (await demoSiteIds(server)).academy;
    });
    afterAll(() => server?.close());

    /** The same figures straight from the source records, for [from, to] local days. */
    async function fromRecords(from: string, to: string): Promise<Omit<Figures, 'activeLearners'>> {
      const db = server.store.db;
      const inRange = (ms: number) => {
        const d = berlinDay(ms);
        return d >= from && d <= to;
      };
      const orders = (await db.selectFrom('orders').select(['total_cents', 'paid_at']).where('site_id', '=', academyId).execute()).filter(
        (o) => inRange(Number(o.paid_at)),
      );
      const refunds = (await db.selectFrom('refunds').select(['amount_cents', 'at']).where('site_id', '=', academyId).execute()).filter(
        (r) => inRange(Number(r.at)),
      );
      const enrollments = await db
        .selectFrom('enrollments')
        .select(['started_at', 'completed_at'])
        .where('site_id', '=', academyId)
        .execute();
      return {
        revenueCents: orders.reduce((s, o) => s + Number(o.total_cents), 0),
        refundsCents: refunds.reduce((s, r) => s + Number(r.amount_cents), 0),
        orders: orders.length,
        newEnrollments: enrollments.filter((e) => inRange(Number(e.started_at))).length,
        completions: enrollments.filter((e) => e.completed_at !== null && inRange(Number(e.completed_at))).length,
      };
    }

    it('gives the overview of a year from the real records, against the previous year, in the school’s time zone', async () => {
      const to = berlinDay(Date.now());
      const from = berlinDaysAgo(364);
      const answer = await get(`/analytics/overview?from=${from}&to=${to}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ from, to, timeZone: 'Europe/Berlin', currency: 'EUR' });
      const current = answer.body.current as Figures;
      expect(current).toMatchObject(await fromRecords(from, to));
      expect(current.orders).toBeGreaterThan(300);
      expect(current.revenueCents).toBeGreaterThan(0);
      expect(current.activeLearners).toBeGreaterThan(20);
      const previous = answer.body.previous as Figures & { from: string; to: string };
      expect(previous.to).toBe(berlinDaysAgo(365));
      // The demo's history starts a year ago: the year before has (almost) nothing, so changes are null or large.
      expect(previous.orders).toBeLessThan(current.orders);
      const last30 = await get('/analytics/overview');
      expect(last30.body.to).toBe(to);
      expect((last30.body.current as Figures).orders).toBeLessThanOrEqual(current.orders);
    });

    it('counts active learners exactly (distinct people with learning activity in the range), for ranges cut anywhere in a month', async () => {
      const db = server.store.db;
      const progress = await db
        .selectFrom('lecture_progress as p')
        .innerJoin('enrollments as e', 'e.id', 'p.enrollment_id')
        .select(['e.person_id', 'p.completed_at as at'])
        .where('p.site_id', '=', academyId)
        .execute();
      const last = await db
        .selectFrom('enrollments')
        .select(['person_id', 'last_activity_at as at'])
        .where('site_id', '=', academyId)
        .where('last_activity_at', 'is not', null)
        .execute();
      const events = [...progress, ...last].map((e) => ({ person: e.person_id, day: berlinDay(Number(e.at)) }));
      for (const [back, length] of [
        [200, 45],
        [120, 9],
        [364, 365],
        [33, 1],
      ] as const) {
        const from = berlinDaysAgo(back);
        const to = berlinDaysAgo(back - length + 1);
        const exact = new Set(events.filter((e) => e.day >= from && e.day <= to).map((e) => e.person)).size;
        const answer = (await get(`/analytics/overview?from=${from}&to=${to}`)).body.current as Figures;
        expect(answer.activeLearners, `${from}..${to}`).toBe(exact);
      }
    });

    it('counts from the stored bitmaps, not a stale copy: activity rewritten after a read is read again (digest check)', async () => {
      const to = berlinDay(Date.now());
      const from = berlinDaysAgo(364);
      const year = `/analytics/overview?from=${from}&to=${to}`;
      const before = ((await get(year)).body.current as Figures).activeLearners;
      expect(((await get(year)).body.current as Figures).activeLearners).toBe(before);
      // Another writer (a rebuild, another node) replaces the bitmaps this process has read.
      const people = ['per_a', 'per_b', 'per_c'];
      await writeActivity(server.store.db, academyId, new Map([[berlinDaysAgo(100), new Set(people)]]));
      expect(((await get(year)).body.current as Figures).activeLearners).toBe(3);
      await rebuildRollups(server.store.db, academyId);
      expect(((await get(year)).body.current as Figures).activeLearners).toBe(before);
    });

    it('gives a time series by day, week and month with every bucket present, adding up to the overview; by product and by course', async () => {
      const to = berlinDay(Date.now());
      const from = berlinDaysAgo(89);
      const total = ((await get(`/analytics/overview?from=${from}&to=${to}`)).body.current as Figures).revenueCents;
      for (const interval of ['day', 'week', 'month']) {
        const answer = await get(`/analytics/timeseries?metric=revenue&from=${from}&to=${to}&interval=${interval}`);
        expect(answer.status).toBe(200);
        const [series] = answer.body.series as Series[];
        expect(series?.key).toBe('total');
        expect(series?.points.reduce((s, p) => s + p.value, 0)).toBe(total);
        if (interval === 'day') expect(series?.points).toHaveLength(90);
        if (interval === 'week')
          for (const p of series?.points.slice(1) ?? []) expect(new Date(`${p.start}T00:00:00Z`).getUTCDay()).toBe(1);
        if (interval === 'month') for (const p of series?.points.slice(1) ?? []) expect(p.start.endsWith('-01')).toBe(true);
      }
      const byProduct = (await get(`/analytics/timeseries?metric=revenue&from=${from}&to=${to}&interval=month&groupBy=product`)).body
        .series as Series[];
      expect(byProduct.length).toBeGreaterThan(1);
      expect(byProduct.every((s) => s.key.startsWith('product:') && s.label !== s.key)).toBe(true);
      expect(byProduct.reduce((sum, s) => sum + s.points.reduce((a, p) => a + p.value, 0), 0)).toBe(total);
      const byCourse = (await get(`/analytics/timeseries?metric=new_enrollments&from=${from}&to=${to}&interval=week&groupBy=course`)).body
        .series as Series[];
      expect(byCourse.every((s) => s.key.startsWith('course:'))).toBe(true);
      const learners = (await get(`/analytics/timeseries?metric=active_learners&from=${from}&to=${to}&interval=month`)).body
        .series as Series[];
      expect(learners[0]?.points.some((p) => p.value > 0)).toBe(true);

      expectProblem(await get(`/analytics/timeseries?metric=active_learners&groupBy=course`), 400, 'invalid_argument');
      expectProblem(await get(`/analytics/timeseries?metric=revenue&from=${to}&to=${from}`), 400, 'invalid_argument');
      expectProblem(await get('/analytics/timeseries?metric=revenue&from=2020-01-01&to=2026-01-01'), 400, 'invalid_argument');
      expectProblem(await get('/analytics/timeseries?metric=happiness'), 400, 'invalid_argument');
      expectProblem(await get('/analytics/timeseries?metric=revenue&interval=hour'), 400, 'invalid_argument');
    });

    it('gives each series of a year by day its stored daily figures, every day present, and weeks as sums of their days', async () => {
      const to = berlinDay(Date.now());
      const from = berlinDaysAgo(364);
      const stored = await server.store.db
        .selectFrom('daily_rollups')
        .select(['dim', 'day', 'value'])
        .where('site_id', '=', academyId)
        .where('metric', '=', 'revenue')
        .where('dim', 'like', 'product:%')
        .where('day', '>=', from)
        .where('day', '<=', to)
        .execute();
      const expected = new Map<string, Map<string, number>>();
      for (const r of stored) expected.set(r.dim, (expected.get(r.dim) ?? new Map()).set(r.day, Number(r.value)));
      expect(expected.size).toBeGreaterThan(1);
      const daily = (await get(`/analytics/timeseries?metric=revenue&from=${from}&to=${to}&groupBy=product`)).body.series as Series[];
      expect(daily.map((s) => s.key).sort()).toEqual([...expected.keys()].sort());
      for (const series of daily) {
        expect(series.points).toHaveLength(365);
        expect(series.points[0]?.start).toBe(from);
        const days = expected.get(series.key);
        expect(series.points.filter((p) => p.value !== 0).length, series.key).toBe(
          [...(days?.values() ?? [])].filter((v) => v !== 0).length,
        );
        for (const p of series.points) expect(p.value, `${series.key} ${p.start}`).toBe(days?.get(p.start) ?? 0);
      }
      const weekly = (await get(`/analytics/timeseries?metric=revenue&from=${from}&to=${to}&interval=week&groupBy=product`)).body
        .series as Series[];
      for (const series of weekly) {
        const days = daily.find((s) => s.key === series.key)?.points ?? [];
        series.points.forEach((week, i) => {
          const next = series.points[i + 1]?.start ?? '9999-12-31';
          const sum = days.filter((d) => d.start >= week.start && d.start < next).reduce((a, d) => a + d.value, 0);
          expect(week.value, `${series.key} week of ${week.start}`).toBe(sum);
        });
      }
    });

    it('keeps the roll-ups in step with the writes: after orders, a refund and a granted enrollment, they equal a rebuild from the records', async () => {
      const studentId = await personId(server, 'student@demo.test');
      const scope = { db: server.store.db, siteId: academyId };
      const course = await server.store.db
        .selectFrom('courses')
        .select(['id', 'title', 'price_cents'])
        .where('site_id', '=', academyId)
        .where('published', '=', 1)
        .orderBy('slug')
        .executeTakeFirstOrThrow();
      const orderId = await placeOrder(scope, {
        personId: studentId,
        currency: 'EUR',
        lines: [
          { productType: 'course', productId: course.id, title: course.title, quantity: 1, unitPriceCents: 5000 },
          { productType: 'course', productId: 'crs_other', title: 'Other', quantity: 2, unitPriceCents: 1000 },
        ],
        discountCents: 700,
        couponCode: 'TEST',
        method: 'card',
        at: Date.now(),
      });
      expect(await refundOrder(scope, orderId, 1000, 'test', Date.now())).toEqual({ kind: 'refunded' });
      expect(await refundOrder(scope, orderId, 100_000, 'too much', Date.now())).toMatchObject({ kind: 'too_much' });
      const newCourse = (
        (await call(server.academy, 'POST', '/courses', operator, { title: `Rollups ${Date.now()}` })).body.course as { id: string }
      ).id;
      expect(
        (await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId: newCourse, lifetime: true })).status,
      ).toBe(201);

      const snapshot = async () =>
        (
          await server.store.db
            .selectFrom('daily_rollups')
            .select(['metric', 'dim', 'day', 'value'])
            .where('site_id', '=', academyId)
            .execute()
        )
          .map((r) => `${r.metric}|${r.dim}|${r.day}|${Number(r.value)}`)
          .sort();
      const incremental = await snapshot();
      await rebuildRollups(server.store.db, academyId);
      expect(await snapshot()).toEqual(incremental);

      const order = (await get(`/orders/${orderId}`)).body.order as Record<string, unknown>;
      expect(order).toMatchObject({
        status: 'partially_refunded',
        subtotalCents: 7000,
        discountCents: 700,
        totalCents: 6300,
        refundedCents: 1000,
        couponCode: 'TEST',
      });
      expect(order.lines).toHaveLength(2);
      expect(order.payments).toEqual([expect.objectContaining({ amountCents: 6300, method: 'card' })]);
      expect(order.refunds).toEqual([expect.objectContaining({ amountCents: 1000, reason: 'test' })]);
    });

    it('lists orders with filters and totals, sums a range, and refuses bad filters', async () => {
      const all = await get('/orders?limit=100');
      expect(all.status).toBe(200);
      const total = all.body.total as number;
      expect(total).toBeGreaterThan(300);
      const refunded = await get('/orders?status=refunded&limit=100');
      expect((refunded.body.items as Array<{ status: string }>).every((o) => o.status === 'refunded')).toBe(true);
      const coupon = await get('/orders?couponCode=SPRING20&limit=5');
      expect((coupon.body.items as Array<{ couponCode: string }>).every((o) => o.couponCode === 'SPRING20')).toBe(true);
      const first = (all.body.items as Array<{ id: string; studentId: string; createdAt: string }>)[0];
      const byStudent = await get(`/orders?studentId=${first?.studentId}&limit=100`);
      expect((byStudent.body.items as Array<{ studentId: string }>).every((o) => o.studentId === first?.studentId)).toBe(true);
      const course = await server.store.db
        .selectFrom('order_lines')
        .select('product_id')
        .where('site_id', '=', academyId)
        .executeTakeFirstOrThrow();
      const byProduct = await get(`/orders?productId=${course.product_id}&limit=100`);
      expect(byProduct.body.total).toBeGreaterThan(0);
      const recent = await get(`/orders?from=${berlinDaysAgo(7)}&limit=100`);
      expect(recent.body.total).toBeLessThan(total);

      const from = berlinDaysAgo(364);
      const summary = await get(`/orders/summary?from=${from}&to=${new Date(Date.now() + DAY).toISOString()}`);
      expect(summary.status).toBe(200);
      expect(summary.body.orders).toBe(total);
      expect(summary.body.netCents).toBe((summary.body.grossCents as number) - (summary.body.refundedCents as number));
      const byStatus = summary.body.byStatus as { paid: number; partially_refunded: number; refunded: number };
      expect(byStatus.paid + byStatus.partially_refunded + byStatus.refunded).toBe(total);

      expectProblem(await get('/orders?status=lost'), 400, 'invalid_argument');
      expectProblem(await get('/orders?from=yesterday'), 400, 'invalid_argument');
      expectProblem(await get('/orders/summary?from=2026-02-01&to=2026-01-01'), 400, 'invalid_argument');
      expectProblem(await get('/orders/ord_nothing'), 404, 'not_found');
      // Another school's orders are not reachable.
      const studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      expectProblem(await call(server.studio, 'GET', `/orders/${first?.id}`, studioOperator), 404, 'not_found');
    });

    it('answers course analytics with the drop-off lecture, and at-risk learners with their reasons', async () => {
      const busiest = await server.store.db
        .selectFrom('enrollments')
        .select(['course_id', (eb) => eb.fn.countAll().as('n')])
        .where('site_id', '=', academyId)
        .groupBy('course_id')
        .orderBy('n', 'desc')
        .executeTakeFirstOrThrow();
      const answer = await get(`/analytics/courses/${busiest.course_id}`);
      expect(answer.status).toBe(200);
      expect(answer.body.enrolled).toBe(Number(busiest.n));
      expect(answer.body.completed as number).toBeLessThanOrEqual(answer.body.started as number);
      expect(answer.body.completionRate).toBeCloseTo((answer.body.completed as number) / (answer.body.enrolled as number), 2);
      expect(answer.body.dropOff).toMatchObject({ lectureId: expect.any(String), learners: expect.any(Number) });
      expectProblem(await get('/analytics/courses/crs_nothing'), 404, 'not_found');

      const risk = await get('/analytics/at_risk_learners?inactiveDays=30&expiringWithinDays=60&limit=100');
      expect(risk.status).toBe(200);
      const items = risk.body.items as Array<{ reasons: string[]; lastActivityAt: string | null }>;
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((i) => i.reasons.length > 0)).toBe(true);
      expect(
        items
          .filter((i) => i.reasons.includes('inactive'))
          .every((i) => i.lastActivityAt === null || Date.parse(i.lastActivityAt) < Date.now() - 30 * DAY),
      ).toBe(true);
      expectProblem(await get('/analytics/at_risk_learners'), 400, 'invalid_argument');
    });

    it('answers the analytics tools through MCP with aggregates', async () => {
      const client = await connectMcp(server.academy, operator);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining([
            'get_school_overview',
            'get_metric_timeseries',
            'get_course_analytics',
            'list_at_risk_learners',
            'list_orders',
          ]),
        );
        const overview = structured<{ current: Figures }>(await client.callTool({ name: 'get_school_overview', arguments: {} }));
        expect(overview.current.revenueCents).toBeGreaterThanOrEqual(0);
        const series = structured<{ series: Series[] }>(
          await client.callTool({ name: 'get_metric_timeseries', arguments: { metric: 'orders', interval: 'week' } }),
        );
        expect(series.series[0]?.points.length).toBeGreaterThan(3);
      } finally {
        await client.close();
      }
    });
  });
}
