// CONTRACT 6 membership_plans and subscriptions (issue 10): plans with price, interval, access length and
// products, edited under If-Match, archived with their subscribers untouched; subscriptions listed by status,
// plan and student, cancelled at period end or at once, resumed before the end; cancel_subscription through
// MCP after a confirmation. Scope, site and input checks, audit. Real HTTP, real tokens, both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, demoSiteIds, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

interface Plan {
  id: string;
  name: string;
  priceCents: number;
  interval: string;
  accessDays: number | null;
  products: Array<{ type: string; id: string }>;
  activeSubscriptions: number;
  state: string;
}

interface Subscription {
  id: string;
  studentId: string;
  planId: string;
  status: 'active' | 'cancelling' | 'past_due' | 'ended';
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string;
  endedAt: string | null;
}

const STATUSES = ['active', 'cancelling', 'past_due', 'ended'] as const;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: membership plans and subscriptions (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let reader: string;
    let studioOperator: string;
    let academyId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      reader = (await getTokens(server, VENDOR('academy'), { scope: 'membership_plans:read subscriptions:read', who: person('owner') }))
        .access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      academyId = (await demoSiteIds(server)).academy;
    });
    afterAll(() => server?.close());

    const all = async (status?: string) => {
      const items: Subscription[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `/subscriptions?limit=100${status ? `&status=${status}` : ''}${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await call(server.academy, 'GET', query, reader);
        expect(page.status).toBe(200);
        items.push(...(page.body.items as Subscription[]));
        cursor = page.body.nextCursor as string | null;
      } while (cursor);
      return items;
    };

    it('lists the demo’s subscriptions in every status, the status filters partitioning them, from the stored moments', async () => {
      const every = await all();
      expect(every.length).toBe(36);
      const now = Date.now();
      const rows = await server.store.db.selectFrom('subscriptions').selectAll().where('site_id', '=', academyId).execute();
      const expected = new Map(
        rows.map((r) => {
          const end = Number(r.current_period_end);
          const status =
            r.ended_at !== null || (r.cancel_at_period_end === 1 && end <= now)
              ? 'ended'
              : r.cancel_at_period_end === 1
                ? 'cancelling'
                : end <= now
                  ? 'past_due'
                  : 'active';
          return [r.id, status];
        }),
      );
      for (const s of every) expect(s.status, s.id).toBe(expected.get(s.id));
      let sum = 0;
      for (const status of STATUSES) {
        const some = await all(status);
        expect(some.length, status).toBeGreaterThan(0);
        for (const s of some) expect(s.status).toBe(status);
        sum += some.length;
      }
      expect(sum).toBe(every.length);
      const first = every[0] as Subscription;
      const byStudent = await call(server.academy, 'GET', `/subscriptions?studentId=${first.studentId}`, reader);
      expect((byStudent.body.items as Subscription[]).every((s) => s.studentId === first.studentId)).toBe(true);
      const byPlan = await call(server.academy, 'GET', '/subscriptions?planId=pln_demo_yearly&limit=100', reader);
      expect(byPlan.body.total).toBe(every.filter((s) => s.planId === 'pln_demo_yearly').length);
    });

    it('lists plans with the subscriptions each has running; the archived starter pass keeps its state', async () => {
      const plans = (await call(server.academy, 'GET', '/membership_plans', reader)).body.items as Plan[];
      const every = await all();
      const monthly = plans.find((p) => p.id === 'pln_demo_monthly');
      expect(monthly).toMatchObject({ interval: 'month', priceCents: 1900, state: 'active' });
      expect(monthly?.activeSubscriptions).toBe(every.filter((s) => s.planId === 'pln_demo_monthly' && s.status !== 'ended').length);
      expect(plans.find((p) => p.id === 'pln_demo_starter')).toMatchObject({ interval: 'one_time', accessDays: 365, state: 'archived' });
    });

    it('creates a plan with products, edits it under If-Match (stale: 412), archives it; another school’s product is refused', async () => {
      const course = (
        await server.store.db.selectFrom('courses').select('id').where('site_id', '=', academyId).orderBy('slug').executeTakeFirstOrThrow()
      ).id;
      const created = await call(server.academy, 'POST', '/membership_plans', operator, {
        name: 'Weekend pass',
        priceCents: 900,
        currency: 'EUR',
        interval: 'month',
        accessDays: 30,
        products: [{ type: 'course', id: course }],
      });
      expect(created.status).toBe(201);
      const plan = created.body.plan as Plan;
      expect(plan).toMatchObject({
        name: 'Weekend pass',
        activeSubscriptions: 0,
        state: 'active',
        products: [{ type: 'course', id: course }],
      });
      const tag = (await call(server.academy, 'GET', `/membership_plans/${plan.id}`, reader)).headers.get('etag') ?? '';
      const edited = await call(
        server.academy,
        'PATCH',
        `/membership_plans/${plan.id}`,
        operator,
        { priceCents: 1200 },
        { 'if-match': tag },
      );
      expect((edited.body.plan as Plan).priceCents).toBe(1200);
      expectProblem(
        await call(server.academy, 'PATCH', `/membership_plans/${plan.id}`, operator, { priceCents: 1 }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      const archived = await call(server.academy, 'POST', `/membership_plans/${plan.id}/archive`, operator, {});
      expect((archived.body.plan as Plan).state).toBe('archived');

      const studioCourse = (
        await server.store.db.selectFrom('courses').select('id').where('site_id', '!=', academyId).executeTakeFirstOrThrow()
      ).id;
      for (const [body, pointer] of [
        [
          { name: 'X', priceCents: 1, currency: 'EUR', interval: 'month', products: [{ type: 'course', id: studioCourse }] },
          '/products/0/id',
        ],
        [{ name: 'X', priceCents: 1, currency: 'EUR', interval: 'weekly', products: [] }, '/interval'],
        [{ name: 'X', priceCents: -1, currency: 'EUR', interval: 'year', products: [] }, '/priceCents'],
        [{ name: 'X', priceCents: 1, currency: 'euro', interval: 'year', products: [] }, '/currency'],
      ] as const) {
        const answer = await call(server.academy, 'POST', '/membership_plans', operator, body);
        expectProblem(answer, 400, 'invalid_argument');
        expect((answer.body.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toContain(pointer);
      }
    });

    it('archiving a plan leaves its subscribers’ subscriptions as they were', async () => {
      const before = (await all()).filter((s) => s.planId === 'pln_demo_yearly');
      await call(server.academy, 'POST', '/membership_plans/pln_demo_yearly/archive', operator, {});
      const after = (await all()).filter((s) => s.planId === 'pln_demo_yearly');
      expect(after).toEqual(before);
      expect(((await call(server.academy, 'GET', '/membership_plans/pln_demo_yearly', reader)).body.plan as Plan).activeSubscriptions).toBe(
        before.filter((s) => s.status !== 'ended').length,
      );
    });

    it('cancels at period end (access runs to it), resumes, cancels at once; refuses what the status does not allow; audits each', async () => {
      const active = (await all('active'))[0] as Subscription;
      const cancelling = await call(server.academy, 'POST', `/subscriptions/${active.id}/cancel`, operator, {});
      expect(cancelling.status).toBe(200);
      expect(cancelling.body.subscription).toMatchObject({
        status: 'cancelling',
        cancelAtPeriodEnd: true,
        currentPeriodEnd: active.currentPeriodEnd,
      });
      expectProblem(await call(server.academy, 'POST', `/subscriptions/${active.id}/cancel`, operator, {}), 409, 'conflict');
      const resumed = await call(server.academy, 'POST', `/subscriptions/${active.id}/resume`, operator, {});
      expect(resumed.body.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
      const ended = await call(server.academy, 'POST', `/subscriptions/${active.id}/cancel`, operator, { immediately: true });
      expect(ended.body.subscription).toMatchObject({ status: 'ended' });
      expect((ended.body.subscription as Subscription).endedAt).not.toBeNull();
      expectProblem(await call(server.academy, 'POST', `/subscriptions/${active.id}/resume`, operator, {}), 409, 'conflict');
      expectProblem(
        await call(server.academy, 'POST', `/subscriptions/${active.id}/cancel`, operator, { immediately: true }),
        409,
        'conflict',
      );
      const log = await call(server.academy, 'GET', '/audit_events?limit=100', operator);
      const actions = (log.body.items as Array<{ action: string; target: string | null }>)
        .filter((e) => e.target === `subscription:${active.id}`)
        .map((e) => e.action)
        .sort();
      expect(actions).toEqual(['operator.cancel_subscription', 'operator.cancel_subscription', 'operator.resume_subscription']);
    });

    it('answers another school’s plan or subscription like none (404), refuses a bad status filter, and needs the write scopes', async () => {
      const sub = (await all())[0] as Subscription;
      expectProblem(await call(server.studio, 'GET', `/subscriptions/${sub.id}`, studioOperator), 404, 'not_found');
      expectProblem(await call(server.studio, 'POST', `/subscriptions/${sub.id}/cancel`, studioOperator, {}), 404, 'not_found');
      expectProblem(await call(server.studio, 'GET', '/membership_plans/pln_demo_monthly', studioOperator), 404, 'not_found');
      expectProblem(await call(server.academy, 'GET', '/subscriptions?status=paused', reader), 400, 'invalid_argument');
      const denied = await call(server.academy, 'POST', `/subscriptions/${sub.id}/cancel`, reader, {});
      expect(denied.status).toBe(403);
      expect(denied.headers.get('www-authenticate')).toContain('scope="subscriptions:write"');
    });

    it('cancels through MCP only after a confirmation bound to the same arguments; list_subscriptions counts without a roster', async () => {
      const target = (await all('active'))[1] as Subscription;
      const client = await connectMcp(server.academy, operator);
      try {
        const counted = structured<{ total: number; items: unknown[] }>(
          await client.callTool({ name: 'list_subscriptions', arguments: { status: 'active', limit: 1 } }),
        );
        expect(counted.total).toBe((await all('active')).length);
        const preview = structured<{ confirmationRequired: boolean; confirmationToken: string; preview: { summary: string } }>(
          await client.callTool({ name: 'cancel_subscription', arguments: { id: target.id } }),
        );
        expect(preview.confirmationRequired).toBe(true);
        expect(preview.preview.summary).toMatch(/at the end of the current period/);
        expect(((await call(server.academy, 'GET', `/subscriptions/${target.id}`, reader)).body.subscription as Subscription).status).toBe(
          'active',
        );
        const done = structured<{ subscription: Subscription }>(
          await client.callTool({
            name: 'cancel_subscription',
            arguments: { id: target.id, confirmationToken: preview.confirmationToken },
          }),
        );
        expect(done.subscription.status).toBe('cancelling');
      } finally {
        await client.close();
      }
    });
  });
}
