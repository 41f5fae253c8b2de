// CONTRACT 6 students (issue 9): search with filters, profiles with every enrollment's progress, course
// rosters, enrollments granted until a date or for life, changed, revoked with progress kept; idempotent
// grants, audit events, other-site ids, bad input; the MCP tools with the two-step confirmation. Over real
// HTTP with tokens from the real flow, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { connectMcp, errorText, personId, structured } from '../helpers/mcp.js';
import { ALL_REST_SCOPES, type Answer, call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

interface Enrollment {
  id: string;
  studentId: string;
  courseId: string;
  state: string;
  accessExpiresAt: string | null;
  lifetimeAccess: boolean;
  completedLectures: number;
  progressPercent: number;
  revokedAt: string | null;
}
interface Profile {
  student: { id: string; name: string; email: string; note: string; enrollmentCount: number };
  enrollments: Enrollment[];
  enrollmentsComplete: boolean;
}

const items = <T>(answer: Answer) => answer.body.items as T[];
let serial = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${serial++}`;

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API: students and enrollments (${dialect})`, () => {
    let server: DemoServer;
    let operator: string;
    let studioOperator: string;
    let studentToken: string;
    let studentId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      const owner = person('owner');
      operator = (await getTokens(server, VENDOR('academy'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      studioOperator = (await getTokens(server, VENDOR('studio'), { scope: ALL_REST_SCOPES, who: owner })).access_token;
      studentToken = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid account:read', who: person('student') }))
        .access_token;
      studentId = await personId(server, 'student@demo.test');
    });
    afterAll(() => server?.close());

    const get = (path: string, token = operator) => call(server.academy, 'GET', path, token);
    const newCourse = async () => {
      const id = ((await call(server.academy, 'POST', '/courses', operator, { title: unique('Course') })).body.course as { id: string }).id;
      const section = (await call(server.academy, 'POST', `/courses/${id}/sections`, operator, { title: 'One' })).body.sectionId as string;
      for (const title of ['L1', 'L2'])
        await call(server.academy, 'POST', `/sections/${section}/lectures`, operator, { title, durationSeconds: 60 });
      return id;
    };
    const myEnrollments = async () => {
      const client = await connectMcp(server.academy, studentToken);
      try {
        return structured<{ items: Array<{ course: { id: string }; accessState: string }> }>(
          await client.callTool({ name: 'list_my_enrollments', arguments: { limit: 100 } }),
        ).items;
      } finally {
        await client.close();
      }
    };

    it('finds students by part of the name or e-mail in any case, by course, state and inactivity, with totals that match the filter', async () => {
      const byEmail = await get('/students?q=STUDENT%40DEMO');
      expect(byEmail.status).toBe(200);
      expect(items<{ id: string }>(byEmail).map((s) => s.id)).toEqual([studentId]);
      expect(byEmail.body.total).toBe(1);
      expect((await get('/students?q=%25')).body.total).toBe(0); // a literal %, not a wildcard
      const profile = (await get(`/students/${studentId}`)).body as unknown as Profile;
      const courseId = profile.enrollments[0]?.courseId as string;
      expect(items<{ id: string }>(await get(`/students?courseId=${courseId}&limit=100`)).map((s) => s.id)).toContain(studentId);
      expect(items<{ id: string }>(await get('/students?state=active&limit=100')).map((s) => s.id)).toContain(studentId);

      const added = (
        await call(server.academy, 'POST', '/students', operator, { email: `${unique('quiet')}@example.test`, name: 'Quiet Learner' })
      ).body as unknown as Profile;
      const inactive = await get('/students?inactiveDays=3650&limit=100');
      expect(items<{ id: string }>(inactive).map((s) => s.id)).toContain(added.student.id);
      expect(items<{ id: string }>(inactive).map((s) => s.id)).not.toContain(studentId);
      expect(inactive.body.total).toBe(items(inactive).length);
      // The unfiltered total comes from the count the role triggers keep: it equals the rows, after every change.
      const directCount = async () =>
        Number(
          (
            await server.store.db
              .selectFrom('site_roles')
              .innerJoin('sites', 'sites.id', 'site_roles.site_id')
              .where('sites.origin', '=', server.academy)
              .where('role', '=', 'student')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect((await get('/students')).body.total).toBe(await directCount());
      const later = (
        await call(server.academy, 'POST', '/students', operator, { email: `${unique('counted')}@example.test`, name: 'Counted' })
      ).body as unknown as Profile;
      expect((await get('/students')).body.total).toBe(await directCount());
      await server.store.db.deleteFrom('site_roles').where('person_id', '=', later.student.id).execute();
      expect((await get('/students')).body.total).toBe(await directCount());
      expectProblem(await get('/students?state=asleep'), 400, 'invalid_argument');
      expectProblem(await get('/students?inactiveDays=0'), 400, 'invalid_argument');
    });

    it('shows a profile with every enrollment’s progress, expiry and last activity, with an ETag; another site’s person is 404', async () => {
      const answer = await get(`/students/${studentId}`);
      expect(answer.headers.get('etag')).toMatch(/^"/);
      const profile = answer.body as unknown as Profile;
      expect(profile.student).toMatchObject({ id: studentId, email: 'student@demo.test', note: '' });
      expect(profile.enrollments.length).toBe(profile.student.enrollmentCount);
      expect(profile.enrollmentsComplete).toBe(true);
      expect(profile.enrollments.some((e) => e.progressPercent > 0 && e.completedLectures > 0)).toBe(true);
      const studioStudent = (
        await call(server.studio, 'POST', '/students', studioOperator, { email: `${unique('studio')}@example.test`, name: 'Studio Only' })
      ).body as unknown as Profile;
      expectProblem(await get(`/students/${studioStudent.student.id}`), 404, 'not_found');
      expectProblem(await get(`/students/${studioStudent.student.id}/enrollments`), 404, 'not_found');
    });

    it('adds a student by e-mail once (the same e-mail is the same account) and keeps an operators’ note, honouring If-Match', async () => {
      const email = `${unique('new')}@Example.test`;
      const first = await call(server.academy, 'POST', '/students', operator, { email, name: 'New Learner' });
      expect(first.status).toBe(201);
      const id = (first.body as unknown as Profile).student.id;
      expect((first.body as unknown as Profile).student.email).toBe(email.toLowerCase());
      expect(
        (
          (await call(server.academy, 'POST', '/students', operator, { email: email.toUpperCase(), name: 'Again' }))
            .body as unknown as Profile
        ).student.id,
      ).toBe(id);
      const tag = (await get(`/students/${id}`)).headers.get('etag') ?? '';
      const noted = await call(
        server.academy,
        'PATCH',
        `/students/${id}`,
        operator,
        { note: 'Prefers evening sessions' },
        { 'if-match': tag },
      );
      expect((noted.body as unknown as Profile).student.note).toBe('Prefers evening sessions');
      expectProblem(
        await call(server.academy, 'PATCH', `/students/${id}`, operator, { note: 'stale' }, { 'if-match': tag }),
        412,
        'precondition_failed',
      );
      expectProblem(
        await call(server.academy, 'POST', '/students', operator, { email: 'not-an-email', name: 'X' }),
        400,
        'invalid_argument',
      );
      // A person's name belongs to their account: a PATCH that tries to change it is refused, not ignored.
      const renamed = await call(server.academy, 'PATCH', `/students/${id}`, operator, { name: 'Someone Else' });
      expectProblem(renamed, 400, 'invalid_argument');
      expect(renamed.body.errors).toEqual([{ pointer: '/name', detail: 'not a field of this operation' }]);
      expectProblem(
        await call(server.academy, 'PATCH', `/students/${id}`, operator, { id: 'per_other', note: 'x' }),
        400,
        'invalid_argument',
      );
    });

    it('grants until a date, changes to lifetime, revokes with progress kept (the member sees it expired), and grants again restoring the same enrollment', async () => {
      const courseId = await newCourse();
      const until = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const granted = await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId, expiresAt: until });
      expect(granted.status).toBe(201);
      const enrollment = granted.body.enrollment as Enrollment;
      expect(enrollment).toMatchObject({
        studentId,
        courseId,
        state: 'active',
        lifetimeAccess: false,
        accessExpiresAt: until,
        progressPercent: 0,
      });
      expect((await myEnrollments()).find((e) => e.course.id === courseId)?.accessState).toBe('ACTIVE');
      expectProblem(await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId, lifetime: true }), 409, 'conflict');

      const roster = await get(`/courses/${courseId}/enrollments`);
      expect(items<Enrollment>(roster).map((e) => e.id)).toEqual([enrollment.id]);
      expect(roster.body.total).toBe(1);

      const lifetime = await call(server.academy, 'PATCH', `/enrollments/${enrollment.id}`, operator, { lifetime: true });
      expect(lifetime.body.enrollment).toMatchObject({ lifetimeAccess: true, accessExpiresAt: null, state: 'active' });

      // Progress on one lecture, then revoke: the progress stays.
      const lecture = await server.store.db
        .selectFrom('lectures')
        .select(['id', 'site_id'])
        .where('course_id', '=', courseId)
        .executeTakeFirstOrThrow();
      await server.store.db
        .insertInto('lecture_progress')
        .values({ site_id: lecture.site_id, enrollment_id: enrollment.id, lecture_id: lecture.id, completed_at: Date.now() })
        .execute();
      const revoked = await call(server.academy, 'POST', `/enrollments/${enrollment.id}/revoke`, operator);
      expect(revoked.body.enrollment).toMatchObject({ state: 'revoked', lifetimeAccess: false, completedLectures: 1, progressPercent: 50 });
      expect((revoked.body.enrollment as Enrollment).revokedAt).not.toBeNull();
      expect((await myEnrollments()).find((e) => e.course.id === courseId)?.accessState).toBe('EXPIRED');

      const again = await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId, lifetime: true });
      expect(again.status).toBe(201);
      expect(again.body.enrollment).toMatchObject({ id: enrollment.id, state: 'active', completedLectures: 1, revokedAt: null });
      const log = items<{ action: string; target: string }>(await get('/audit_events?action=operator.&limit=5'));
      expect(log.map((e) => e.action)).toEqual(
        expect.arrayContaining(['operator.grant_enrollment', 'operator.revoke_enrollment', 'operator.change_enrollment_access']),
      );
      expect(log.every((e) => e.target === `enrollment:${enrollment.id}` || !e.action.includes('enrollment'))).toBe(true);
    });

    it('grants once for one Idempotency-Key, and refuses bad access input and other sites’ people or courses', async () => {
      const courseId = await newCourse();
      const key = unique('grant');
      const body = { studentId, courseId, lifetime: true };
      const first = await call(server.academy, 'POST', '/enrollments', operator, body, { 'idempotency-key': key });
      const second = await call(server.academy, 'POST', '/enrollments', operator, body, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');

      const other = await newCourse();
      expectProblem(await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId: other }), 400, 'invalid_argument');
      expectProblem(
        await call(server.academy, 'POST', '/enrollments', operator, {
          studentId,
          courseId: other,
          lifetime: true,
          expiresAt: '2030-01-01T00:00:00Z',
        }),
        400,
        'invalid_argument',
      );
      expectProblem(
        await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId: other, expiresAt: 'next tuesday' }),
        400,
        'invalid_argument',
      );
      const studioCourse = (
        (await call(server.studio, 'POST', '/courses', studioOperator, { title: unique('Studio course') })).body.course as { id: string }
      ).id;
      expectProblem(
        await call(server.academy, 'POST', '/enrollments', operator, { studentId, courseId: studioCourse, lifetime: true }),
        404,
        'not_found',
      );
      const stranger = (
        await call(server.studio, 'POST', '/students', studioOperator, { email: `${unique('stranger')}@example.test`, name: 'Stranger' })
      ).body as unknown as Profile;
      expectProblem(
        await call(server.academy, 'POST', '/enrollments', operator, { studentId: stranger.student.id, courseId: other, lifetime: true }),
        404,
        'not_found',
      );
      const studioEnrollment = await call(server.studio, 'POST', '/enrollments', studioOperator, {
        studentId: stranger.student.id,
        courseId: studioCourse,
        lifetime: true,
      });
      const foreignId = (studioEnrollment.body.enrollment as Enrollment).id;
      expectProblem(await call(server.academy, 'POST', `/enrollments/${foreignId}/revoke`, operator), 404, 'not_found');
      expectProblem(await get(`/courses/${studioCourse}/enrollments`), 404, 'not_found');
    });

    it('changes access through MCP in two steps, and lists a course roster and a student through the tools', async () => {
      const courseId = await newCourse();
      const client = await connectMcp(server.academy, operator);
      try {
        const granted = structured<{ enrollment: Enrollment }>(
          await client.callTool({ name: 'grant_enrollment', arguments: { studentId, courseId, lifetime: true } }),
        );
        const preview = structured<{ confirmationRequired: boolean; confirmationToken: string; preview: { summary: string } }>(
          await client.callTool({
            name: 'change_enrollment_access',
            arguments: { id: granted.enrollment.id, expiresAt: '2020-01-01T00:00:00Z' },
          }),
        );
        expect(preview.confirmationRequired).toBe(true);
        expect(preview.preview.summary).toMatch(/access until 2020-01-01T00:00:00.000Z .*now active, lifetime/);
        expect(((await get(`/enrollments/${granted.enrollment.id}`)).body.enrollment as Enrollment).lifetimeAccess).toBe(true);
        expect(
          errorText(
            await client.callTool({
              name: 'change_enrollment_access',
              arguments: { id: granted.enrollment.id, expiresAt: '2021-01-01T00:00:00Z', confirmationToken: preview.confirmationToken },
            }),
          ),
        ).toMatch(/another call/);
        const done = structured<{ enrollment: Enrollment }>(
          await client.callTool({
            name: 'change_enrollment_access',
            arguments: { id: granted.enrollment.id, expiresAt: '2020-01-01T00:00:00Z', confirmationToken: preview.confirmationToken },
          }),
        );
        expect(done.enrollment).toMatchObject({ state: 'expired', lifetimeAccess: false });

        const roster = structured<{ total: number; items: Enrollment[] }>(
          await client.callTool({ name: 'list_course_enrollments', arguments: { id: courseId } }),
        );
        expect(roster.total).toBe(1);
        const profile = structured<Profile>(await client.callTool({ name: 'get_student', arguments: { id: studentId } }));
        expect(profile.enrollments.map((e) => e.courseId)).toContain(courseId);
      } finally {
        await client.close();
      }
    });
  });
}
