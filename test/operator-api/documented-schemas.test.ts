// Issue 9, "done when": a test drives each REST operation of the operator API and validates the answer against
// the schema /openapi.json documents for it, under the media type the answer was sent with. The validator is
// Ajv on the published document itself, not the server's own serializer, so a field the server sends but the
// document does not promise (or the reverse) fails here. Errors are checked the same way.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_OPERATIONS } from '../../src/operations/registry.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { ADMIN_BASE, ALL_REST_SCOPES, type Answer, call, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what arrives.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'https://schoolgate.test/openapi.json';

type Json = Record<string, unknown>;
interface Documented {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}

/** JSON pointer token (RFC 6901) as it must appear in a URI fragment. */
function pointerToken(token: string): string {
  return encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/** The template of a concrete path among the documented operator paths (`/students/abc` -> `/students/{id}`). */
function templateOf(paths: readonly string[], method: string, concrete: string, document: Json): string {
  const candidates = paths.filter((template) => {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    return pattern.test(concrete) && (document.paths as Record<string, Json>)[`${ADMIN_BASE}${template}`]?.[method.toLowerCase()];
  });
  // A literal segment wins over a parameter (`/orders/summary` over `/orders/{id}`).
  candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const found = candidates[0];
  if (!found) throw new Error(`no documented operation for ${method} ${concrete}`);
  return found;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator REST answers match /openapi.json (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let narrow: string;
    let document: Json;
    let templates: string[];
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const driven = new Set<string>();

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const owner = person('owner');
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      narrow = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read', who: owner })).access_token;
      document = (await (await fetch(`${server.academy}/openapi.json`)).json()) as Json;
      ajv.addSchema(document, DOCUMENT_ID);
      templates = Object.keys(document.paths as Json)
        .filter((p) => p.startsWith(ADMIN_BASE))
        .map((p) => p.slice(ADMIN_BASE.length));
    });
    afterAll(() => server?.close());

    /** Checks an answer against the documented response for its status and media type; returns the body. */
    function expectDocumented(method: string, path: string, answer: Answer): Json {
      const template = templateOf(templates, method, path.split('?')[0] as string, document);
      const entry = (document.paths as Record<string, Record<string, Documented>>)[`${ADMIN_BASE}${template}`]?.[
        method.toLowerCase()
      ] as Documented;
      const status = String(answer.status);
      const key = status in entry.responses ? status : `${status[0]}XX`;
      const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      const content = entry.responses[key]?.content;
      expect(content, `${method} ${path} answered ${status}, which /openapi.json does not document`).toBeDefined();
      expect(Object.keys(content ?? {}), `${method} ${path} ${status} sent as ${mediaType}`).toContain(mediaType);
      const fragment = ['paths', `${ADMIN_BASE}${template}`, method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema']
        .map(pointerToken)
        .join('/');
      const validate = ajv.getSchema(`${DOCUMENT_ID}#/${fragment}`);
      if (!validate) throw new Error(`no schema at ${fragment}`);
      const valid = validate(answer.body);
      expect(validate.errors ?? [], `${method} ${path} ${status}: ${JSON.stringify(answer.body).slice(0, 400)}`).toEqual([]);
      expect(valid).toBe(true);
      return answer.body;
    }

    /** Calls one operation with valid input, expects its documented success status, validates and records it. */
    async function drive(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Json> {
      const answer = await call(server.academy, method, path, operator, body, headers);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      const template = templateOf(templates, method, path.split('?')[0] as string, document);
      const entry = (document.paths as Record<string, Record<string, Documented>>)[`${ADMIN_BASE}${template}`]?.[
        method.toLowerCase()
      ] as Documented;
      expect(Object.keys(entry.responses)).toContain(String(answer.status));
      driven.add(entry.operationId);
      return expectDocumented(method, path, answer);
    }

    const items = (body: Json) => body.items as Json[];
    const id = (value: unknown) => (value as Json).id as string;

    it('answers every REST operation, driven with valid input, with a body that validates against its documented schema', async () => {
      // Courses and curriculum, on a fresh draft so the demo's published courses stay as they are.
      const courses = items(await drive('GET', '/courses?limit=100'));
      const demoCourse = id(courses.find((c) => c.published === true));
      const draft = id((await drive('POST', '/courses', { title: 'Schema Check Course', priceCents: 4900, currency: 'EUR' })).course);
      await drive('GET', `/courses/${draft}`);
      await drive('PATCH', `/courses/${draft}`, { subtitle: 'Checked against the document' });
      const section = (await drive('POST', `/courses/${draft}/sections`, { title: 'Part one' })).sectionId as string;
      const lecture = id((await drive('POST', `/sections/${section}/lectures`, { title: 'First steps', durationSeconds: 300 })).lecture);
      const second = id((await drive('POST', `/sections/${section}/lectures`, { title: 'Next steps', durationSeconds: 240 })).lecture);
      await drive('GET', `/lectures/${lecture}`);
      await drive('PATCH', `/lectures/${lecture}`, { title: 'First steps, revised' });
      await drive('POST', `/courses/${draft}/curriculum/reorder`, { sections: [{ id: section, lectureIds: [second, lecture] }] });
      await drive('GET', `/courses/${draft}/curriculum`);
      await drive('DELETE', `/lectures/${second}`);
      await drive('POST', `/courses/${draft}/publish`);

      // Students and enrollments.
      items(await drive('GET', '/students?limit=5&q=learner'));
      const student = id((await drive('POST', '/students', { email: 'schema-check@demo.test', name: 'Schema Check' })).student);
      await drive('GET', `/students/${student}`);
      await drive('PATCH', `/students/${student}`, { note: 'Created by the schema check.' });
      const enrollment = id(
        (await drive('POST', '/enrollments', { studentId: student, courseId: draft, expiresAt: '2031-01-01T00:00:00Z' })).enrollment,
      );
      await drive('GET', `/enrollments/${enrollment}`);
      await drive('PATCH', `/enrollments/${enrollment}`, { lifetime: true });
      await drive('GET', `/students/${student}/enrollments?limit=10`);
      await drive('GET', `/courses/${demoCourse}/enrollments?limit=10`);
      await drive('POST', `/enrollments/${enrollment}/revoke`);

      // Members: the new student gains a role, is suspended and comes back.
      const members = items(await drive('GET', '/members?limit=50'));
      expect(members.length).toBeGreaterThan(0);
      await drive('GET', `/members/${student}`);
      await drive('PATCH', `/members/${student}`, { roles: ['student', 'lecturer'] });
      await drive('POST', `/members/${student}/suspend`, { reason: 'Schema check' });
      await drive('POST', `/members/${student}/unsuspend`);

      // Lecturers.
      await drive('GET', '/lecturers?limit=10');
      const lecturer = id((await drive('POST', '/lecturers', { name: 'Dr. Schema', headline: 'Checks documents' })).lecturer);
      await drive('GET', `/lecturers/${lecturer}`);
      await drive('PATCH', `/lecturers/${lecturer}`, { bio: 'Reads every response.' });
      await drive('PUT', `/courses/${draft}/lecturers`, { lecturerIds: [lecturer] });
      await drive('PUT', `/courses/${draft}/lecturers`, { lecturerIds: [] });
      await drive('DELETE', `/lecturers/${lecturer}`);

      // Coupons.
      await drive('GET', '/coupons?limit=10');
      const coupon = id(
        (await drive('POST', '/coupons', { code: 'SCHEMA10', percentOff: 10, products: [{ type: 'course', id: draft }] })).coupon,
      );
      await drive('GET', `/coupons/${coupon}`);
      await drive('PATCH', `/coupons/${coupon}`, { maxRedemptions: 5, expiresAt: '2031-01-01T00:00:00Z' });
      await drive('POST', '/coupons/bulk', { count: 3, prefix: 'SC-', amountOffCents: 500, currency: 'EUR' });
      await drive('POST', `/coupons/${coupon}/disable`);

      // Membership plans and subscriptions.
      await drive('GET', '/membership_plans');
      const plan = id(
        (
          await drive('POST', '/membership_plans', {
            name: 'Schema plan',
            priceCents: 1000,
            currency: 'EUR',
            interval: 'month',
            products: [{ type: 'course', id: draft }],
          })
        ).plan,
      );
      await drive('GET', `/membership_plans/${plan}`);
      await drive('PATCH', `/membership_plans/${plan}`, { accessDays: 31 });
      await drive('POST', `/membership_plans/${plan}/archive`);
      const subscription = id(items(await drive('GET', '/subscriptions?status=active&limit=5'))[0]);
      await drive('GET', `/subscriptions/${subscription}`);
      await drive('POST', `/subscriptions/${subscription}/cancel`);
      await drive('POST', `/subscriptions/${subscription}/resume`);

      // Posts.
      const post = id((await drive('POST', '/posts', { title: 'Schema news', body: 'Checked.' })).post);
      await drive('GET', '/posts?state=draft');
      await drive('GET', `/posts/${post}`);
      await drive('PATCH', `/posts/${post}`, { body: 'Checked twice.' });
      await drive('POST', `/posts/${post}/publish`, { publishAt: '2031-01-01T00:00:00Z' });
      await drive('DELETE', `/posts/${post}`);

      // Comments and forms.
      const comment = id(items(await drive('GET', '/comments?unanswered=true&limit=5'))[0]);
      await drive('GET', `/comments/${comment}`);
      await drive('GET', '/forms');
      await drive('GET', '/forms/frm_demo_contact');
      await drive('GET', '/forms/frm_demo_contact/submissions?since=2020-01-01T00:00:00Z&limit=5');

      // Digital products.
      await drive('GET', '/digital_products');
      const product = id((await drive('POST', '/digital_products', { title: 'Schema Sheet', kind: 'template', priceCents: 500 })).product);
      await drive('GET', `/digital_products/${product}`);
      await drive('PATCH', `/digital_products/${product}`, { description: 'Checked.' });
      await drive('POST', `/digital_products/${product}/publish`);
      await drive('POST', `/digital_products/${product}/archive`);
      await drive('GET', `/digital_products/${product}/purchasers`);

      // Pages.
      await drive('GET', '/pages');
      const page = id((await drive('POST', '/pages', { title: 'Schema page', body: 'One.' })).page);
      await drive('GET', `/pages/${page}`);
      await drive('PATCH', `/pages/${page}`, { body: 'Two.' });
      const firstRevision = id(items(await drive('GET', `/pages/${page}/revisions`)).at(-1));
      await drive('POST', `/pages/${page}/revisions/${firstRevision}/restore`);
      await drive('POST', `/pages/${page}/publish`);
      await drive('POST', `/pages/${page}/unpublish`);

      // Storage: the upload's body is the file itself.
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('image data')]);
      const uploaded = await fetch(`${server.academy}${ADMIN_BASE}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'image/png' },
        body: png,
      });
      expect(uploaded.status).toBe(201);
      const asset = expectDocumented('POST', '/uploads', {
        status: uploaded.status,
        headers: uploaded.headers,
        body: (await uploaded.json()) as Json,
      }).asset;
      driven.add('upload_asset');
      await drive('GET', '/appearance');
      await drive('PATCH', '/appearance', { logoAssetId: id(asset), primaryColor: '#1b5e20', navigation: [{ label: 'Home', url: '/' }] });
      await drive('DELETE', `/assets/${id(asset)}`);

      // School, events and the audit log the writes above filled.
      await drive('GET', '/events?limit=10');
      const soon = Date.now() + 7 * 86_400_000;
      const event = id(
        (
          await drive('POST', '/events', {
            title: 'Schema Check Evening',
            startsAt: new Date(soon).toISOString(),
            endsAt: new Date(soon + 7_200_000).toISOString(),
            joinUrl: 'https://meet.example.com/schema',
          })
        ).event,
      );
      await drive('GET', `/events/${event}`);
      await drive('PATCH', `/events/${event}`, { published: true, location: 'Online' });
      await drive('GET', `/events/${event}/registrations?limit=10`);
      await drive('POST', `/events/${event}/cancel`, { reason: 'Schema check over.' });
      await drive('GET', '/school');
      await drive('PATCH', '/school', { contactEmail: 'office@demo.test' });
      expect(items(await drive('GET', '/audit_events?limit=20')).length).toBeGreaterThan(0);

      // Analytics and orders over the demo's year of history.
      await drive('GET', '/analytics/overview');
      await drive('GET', '/analytics/timeseries?metric=revenue&interval=month&groupBy=product');
      await drive('GET', '/analytics/timeseries?metric=active_learners&interval=week');
      await drive('GET', '/analytics/timeseries?metric=new_enrollments&interval=day&groupBy=course');
      await drive('GET', `/analytics/courses/${demoCourse}`);
      await drive('GET', '/analytics/at_risk_learners?inactiveDays=14&limit=10');
      const orders = items(await drive('GET', '/orders?limit=10'));
      await drive('GET', `/orders/${id(orders[0])}`);
      const today = new Date().toISOString().slice(0, 10);
      await drive('GET', `/orders/summary?from=2020-01-01&to=${today}`);

      await drive('POST', `/courses/${draft}/unpublish`);
      await drive('POST', `/courses/${draft}/archive`);

      const missing = REST_OPERATIONS.map((op) => op.name).filter((name) => !driven.has(name));
      expect(missing, 'REST operations this test did not drive').toEqual([]);
    });

    it('answers errors with bodies and media types that /openapi.json documents for them', async () => {
      const cases: Array<[string, string, string | undefined, unknown, Record<string, string>?]> = [
        ['GET', '/courses', undefined, undefined], // 401, bearer error
        ['GET', '/students', narrow, undefined], // 403, insufficient scope
        ['GET', '/courses?limit=0', operator, undefined], // 400 problem with field errors
        ['GET', '/students/no-such-student', operator, undefined], // 404 problem
        ['POST', '/courses', operator, { title: 'Schema Error Course', unknownField: 1 }], // 400 unknown field
        ['PATCH', '/school', operator, { name: 'x' }, { 'if-match': '"stale"' }], // 412 problem
      ];
      const statuses = new Set<number>();
      for (const [method, path, token, body, headers] of cases) {
        const answer = await call(server.academy, method, path, token, body, headers);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        statuses.add(answer.status);
        expectDocumented(method, path, answer);
      }
      expect([...statuses].sort()).toEqual([400, 401, 403, 404, 412]);
    });
  });
}
