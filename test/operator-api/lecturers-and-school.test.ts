// CONTRACT 6 lecturers and school (issue 9): lecturer profiles and their assignment to courses in order;
// the school's settings (name, locale, time zone, currency, contact) validated, with ETag and If-Match,
// and a new name on the school's pages. Over real HTTP on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { personId } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { authorizationUrl, DEMO_CLIENTS, getTokens, pkcePair } from '../helpers/token-flow.js';

interface Lecturer {
  id: string;
  personId: string | null;
  name: string;
  headline: string;
  courseIds: string[];
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: lecturers and school settings (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let studioOperator: string;
    let narrow: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: person('owner') })).access_token;
      narrow = (await getTokens(server, VENDOR('academy'), { scope: 'lecturers:read school:read', who: person('owner') })).access_token;
    });
    afterAll(() => server?.close());

    const course = async (title: string, origin = server.academy, token = operator) =>
      ((await call(origin, 'POST', '/courses', token, { title: `${title} ${Date.now()}` })).body.course as { id: string }).id;

    it('creates, edits and deletes lecturer profiles, and sets who teaches a course in order', async () => {
      const lecturerPerson = await personId(server, 'lecturer@demo.test');
      const ada = await call(server.academy, 'POST', '/lecturers', operator, {
        name: 'Ada Lovelace',
        headline: 'Analyst',
        personId: lecturerPerson,
      });
      expect(ada.status).toBe(201);
      const alan = await call(server.academy, 'POST', '/lecturers', operator, { name: 'Alan Turing' });
      const adaId = (ada.body.lecturer as Lecturer).id;
      const alanId = (alan.body.lecturer as Lecturer).id;
      const courseId = await course('Computing');

      const set = await call(server.academy, 'PUT', `/courses/${courseId}/lecturers`, operator, { lecturerIds: [alanId, adaId] });
      expect(set.status).toBe(200);
      expect((set.body.lecturers as Lecturer[]).map((l) => l.name)).toEqual(['Alan Turing', 'Ada Lovelace']);
      expect(((await call(server.academy, 'GET', `/lecturers/${adaId}`, narrow)).body.lecturer as Lecturer).courseIds).toEqual([courseId]);

      const tag = (await call(server.academy, 'GET', `/lecturers/${adaId}`, operator)).headers.get('etag') ?? '';
      const edited = await call(
        server.academy,
        'PATCH',
        `/lecturers/${adaId}`,
        operator,
        { headline: 'First programmer' },
        { 'if-match': tag },
      );
      expect(edited.body.lecturer).toMatchObject({ headline: 'First programmer', name: 'Ada Lovelace', personId: lecturerPerson });
      expectProblem(
        await call(server.academy, 'DELETE', `/lecturers/${adaId}`, operator, undefined, { 'if-match': tag }),
        412,
        'precondition_failed',
      );

      expect((await call(server.academy, 'DELETE', `/lecturers/${alanId}`, operator)).body).toEqual({ deleted: true, id: alanId });
      const after = await call(server.academy, 'PUT', `/courses/${courseId}/lecturers`, operator, { lecturerIds: [adaId] });
      expect((after.body.lecturers as Lecturer[]).map((l) => l.id)).toEqual([adaId]);
      const listed = await call(server.academy, 'GET', '/lecturers?limit=100', narrow);
      expect((listed.body.items as Lecturer[]).map((l) => l.id)).toContain(adaId);
      expect((listed.body.items as Lecturer[]).map((l) => l.id)).not.toContain(alanId);
    });

    it('refuses unknown or duplicate lecturers, another site’s lecturer or course, a person of no role here, and writes without lecturers:write', async () => {
      const courseId = await course('Refusals');
      const studioLecturer = (
        (await call(server.studio, 'POST', '/lecturers', studioOperator, { name: 'Studio Teacher' })).body.lecturer as Lecturer
      ).id;
      expectProblem(
        await call(server.academy, 'PUT', `/courses/${courseId}/lecturers`, operator, { lecturerIds: [studioLecturer] }),
        400,
        'invalid_argument',
      );
      const own = ((await call(server.academy, 'POST', '/lecturers', operator, { name: 'Own' })).body.lecturer as Lecturer).id;
      expectProblem(
        await call(server.academy, 'PUT', `/courses/${courseId}/lecturers`, operator, { lecturerIds: [own, own] }),
        400,
        'invalid_argument',
      );
      const studioCourse = await course('Studio', server.studio, studioOperator);
      expectProblem(
        await call(server.academy, 'PUT', `/courses/${studioCourse}/lecturers`, operator, { lecturerIds: [own] }),
        404,
        'not_found',
      );
      expectProblem(await call(server.academy, 'GET', `/lecturers/${studioLecturer}`, operator), 404, 'not_found');
      expectProblem(
        await call(server.academy, 'POST', '/lecturers', operator, { name: 'Ghost', personId: 'per_nobody' }),
        400,
        'invalid_argument',
      );
      const refused = await call(server.academy, 'POST', '/lecturers', narrow, { name: 'Nope' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toMatch(/lecturers:write/);
    });

    it('reads and changes the school’s settings with validation, ETag and If-Match; a new name shows on the sign-in page', async () => {
      const read = await call(server.academy, 'GET', '/school', narrow);
      expect(read.status).toBe(200);
      expect(read.body.school).toMatchObject({ name: 'Demo Academy' });
      const tag = read.headers.get('etag') ?? '';
      const changed = await call(
        server.academy,
        'PATCH',
        '/school',
        operator,
        { name: 'Demo Academy of Things', timeZone: 'Europe/Berlin', locale: 'de-DE', currency: 'EUR', contactEmail: 'hello@academy.test' },
        { 'if-match': tag },
      );
      expect(changed.status).toBe(200);
      expect(changed.body.school).toMatchObject({
        name: 'Demo Academy of Things',
        timeZone: 'Europe/Berlin',
        locale: 'de-DE',
        contactEmail: 'hello@academy.test',
      });
      expectProblem(
        await call(server.academy, 'PATCH', '/school', operator, { locale: 'fr-FR' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      const bad = await call(server.academy, 'PATCH', '/school', operator, { timeZone: 'Mars/Olympus', currency: 'euro', locale: '!!' });
      expectProblem(bad, 400, 'invalid_argument');
      expect((bad.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort()).toEqual(['/currency', '/locale', '/timeZone']);
      // The studio is another school: untouched.
      expect(((await call(server.studio, 'GET', '/school', studioOperator)).body.school as { name: string }).name).toBe('Demo Studio');

      await server.app.services.sites.reload();
      const page = await person('student').request(authorizationUrl(server, DEMO_CLIENTS.academyApp, pkcePair().challenge));
      expect(page.html).toContain('Demo Academy of Things');
      const log = (await call(server.academy, 'GET', '/audit_events?action=operator.update_school_settings', operator)).body
        .items as Array<{ target: string }>;
      expect(log[0]?.target).toBe('school:settings');
    });
  });
}
