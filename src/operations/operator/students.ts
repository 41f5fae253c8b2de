// Operator operations of the students family (CONTRACT 6 students, scopes students:*): finding students,
// a student's profile with every enrollment's progress, course rosters, and enrollments granted, changed
// and revoked (progress kept).
import { z } from 'zod';
import { courseExists } from '../../school/course-lifecycle.repository.js';
import { PERSON_NAME_MAX_LENGTH } from '../../people/people.repository.js';
import {
  type Access,
  countEnrollments,
  findEnrollment,
  grantEnrollment,
  type OperatorEnrollment,
  pageEnrollments,
  revokeEnrollment,
  setAccess,
} from '../../school/operator-enrollments.repository.js';
import {
  addStudent,
  findStudent,
  searchStudentsWithTotal,
  setStudentNote,
  type StudentProfile,
} from '../../school/operator-students.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const id = (what: string) => z.string().min(1).max(64).describe(`The ${what} id.`);

const student = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  studentSince: instant('When the person became a student here'),
  enrollmentCount: z.number().int(),
});

const enrollment = z.object({
  id: z.string(),
  studentId: z.string(),
  studentName: z.string(),
  courseId: z.string(),
  courseTitle: z.string(),
  state: z.enum(['active', 'expired', 'revoked']),
  startedAt: instant('When the enrollment started'),
  accessExpiresAt: instantOrNull('When access ends; null with lifetime access or no end'),
  lifetimeAccess: z.boolean(),
  revokedAt: instantOrNull('When an operator revoked the access; null unless revoked'),
  completedAt: instantOrNull('When the student completed the course'),
  completedLectures: z.number().int(),
  lectureCount: z.number().int(),
  progressPercent: z.number().int().describe('Whole percent of the course’s lectures completed.'),
  lastActivityAt: instantOrNull('The student’s last learning activity in this course'),
});

function enrollmentOut(e: OperatorEnrollment): z.output<typeof enrollment> {
  return {
    id: e.id,
    studentId: e.studentId,
    studentName: e.studentName,
    courseId: e.courseId,
    courseTitle: e.courseTitle,
    state: e.state,
    startedAt: iso(e.startedAt),
    accessExpiresAt: isoOrNull(e.accessExpiresAt),
    lifetimeAccess: e.lifetimeAccess,
    revokedAt: isoOrNull(e.revokedAt),
    completedAt: isoOrNull(e.completedAt),
    completedLectures: e.completedLectures,
    lectureCount: e.lectureCount,
    progressPercent: e.progressPercent,
    lastActivityAt: isoOrNull(e.lastActivityAt),
  };
}

function studentOut(s: StudentProfile | Omit<StudentProfile, 'note'>) {
  return { id: s.id, name: s.name, email: s.email, studentSince: iso(s.studentSince), enrollmentCount: s.enrollmentCount };
}

/** Until an instant, or for life: exactly one of the two. */
const accessInput = {
  expiresAt: z.iso.datetime({ offset: true }).optional().describe('When access ends (ISO 8601). Give this or lifetime.'),
  lifetime: z.literal(true).optional().describe('Access that never ends. Give this or expiresAt.'),
};

function accessOf(input: { expiresAt?: string | undefined; lifetime?: true | undefined }): Access {
  if ((input.expiresAt === undefined) === (input.lifetime === undefined))
    throw new OperationError(
      'invalid_argument',
      'Give either expiresAt (an ISO 8601 instant) or lifetime: true, not both and not neither.',
      [{ pointer: '/expiresAt', detail: 'give expiresAt or lifetime' }],
    );
  return input.expiresAt !== undefined ? { expiresAt: Date.parse(input.expiresAt) } : { lifetime: true };
}

const describeAccess = (access: Access) =>
  'lifetime' in access ? 'lifetime access' : `access until ${new Date(access.expiresAt).toISOString()}`;

async function enrollmentOr404(ctx: OperationContext, enrollmentId: string): Promise<OperatorEnrollment> {
  const found = await findEnrollment(siteScope(ctx), enrollmentId, ctx.clock.now());
  if (!found) throw new OperationError('not_found', `This school has no enrollment with the id ${enrollmentId}.`);
  return found;
}

const PROFILE_ENROLLMENTS = 100;

/** A student's profile: who, the operators' note, and their enrollments (the newest 100, with the total). */
async function profile(ctx: OperationContext, studentId: string) {
  const scope = siteScope(ctx);
  const found = await findStudent(scope, studentId);
  if (!found) throw new OperationError('not_found', `This school has no student with the id ${studentId}.`);
  const page = await pageEnrollments(scope, { studentId }, { first: PROFILE_ENROLLMENTS }, ctx.clock.now());
  return {
    student: { ...studentOut(found), note: found.note },
    enrollments: page.edges.map((e) => enrollmentOut(e.node)),
    enrollmentsComplete: !page.hasNextPage,
  };
}

const profileOutput = z.object({
  student: student.extend({ note: z.string().describe('The operators’ private note on this student; empty when none.') }),
  enrollments: z.array(enrollment).describe(`Every enrollment, newest first (at most ${PROFILE_ENROLLMENTS}; see enrollmentsComplete).`),
  enrollmentsComplete: z.boolean().describe('False when there are more enrollments: page them with GET /students/{id}/enrollments.'),
});

export const listStudentsOperation = defineOperation({
  name: 'list_students',
  title: 'List students',
  description:
    'Students of this school, newest first, with their e-mail address and how many courses they are enrolled in here. Filter by q (part of ' +
    'the name or e-mail), courseId, state (active, expired, revoked, completed: holding such an enrollment) and inactiveDays (no learning ' +
    'activity in that many days). Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/students' },
  input: z.object({
    ...pageInput,
    q: z.string().trim().min(1).max(200).optional().describe('Part of the name or e-mail address, any case.'),
    courseId: z.string().min(1).max(64).optional().describe('Only students enrolled in this course.'),
    state: z.enum(['active', 'expired', 'revoked', 'completed']).optional().describe('Only students with an enrollment in this state.'),
    inactiveDays: z.number().int().min(1).max(3650).optional().describe('Only students with no learning activity in this many days.'),
  }),
  output: z.object(pagedOutput(student, 'students')),
  annotations: READ_ONLY,
  userContent: ['items[].name'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const now = ctx.clock.now();
    const filter = { q: input.q, courseId: input.courseId, state: input.state, inactiveDays: input.inactiveDays };
    const { page, total } = await searchStudentsWithTotal(scope, filter, pageRequest(input), now);
    return paged(page, total, studentOut);
  },
});

export const getStudent: Operation = defineOperation({
  name: 'get_student',
  title: 'Get a student',
  description:
    'One student of this school: name, e-mail, the operators’ note, and every enrollment with its progress, expiry and last activity.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/students/{id}', resource: () => getStudent },
  input: z.object({ id: id('student (per_…)') }),
  output: profileOutput,
  annotations: READ_ONLY,
  userContent: ['student.name', 'student.note'],
  handle: (ctx, input) => profile(ctx, input.id),
});

export const addStudentOperation = defineOperation({
  name: 'add_student',
  title: 'Add a student',
  description:
    'Makes a person a student of this school by e-mail: their existing account when they have one, else a new account that cannot be ' +
    'signed into until a password is set. Answers the student’s profile.',
  audience: 'operator',
  scopes: ['students:write'],
  rest: { method: 'POST', path: '/students', status: 201 },
  tool: false,
  input: z.object({ email: z.email().max(320), name: z.string().trim().min(1).max(PERSON_NAME_MAX_LENGTH) }),
  output: profileOutput,
  annotations: WRITE,
  userContent: ['student.name', 'student.note'],
  audit: (_input, output) => `student:${output.student.id}`,
  async handle(ctx, input) {
    const added = await addStudent(siteScope(ctx), input.email, input.name, ctx.clock.now());
    return profile(ctx, added.id);
  },
});

export const updateStudent = defineOperation({
  name: 'update_student',
  title: 'Edit a student’s note',
  description:
    'Sets the operators’ private note on a student. A person’s name and e-mail belong to their account, shared by every school, and are not changed here.',
  audience: 'operator',
  scopes: ['students:write'],
  rest: { method: 'PATCH', path: '/students/{id}', resource: () => getStudent },
  tool: false,
  input: z.object({ id: id('student'), note: z.string().max(5000) }),
  output: profileOutput,
  annotations: { ...WRITE, idempotentHint: true },
  userContent: ['student.name', 'student.note'],
  audit: (input) => `student:${input.id}`,
  async handle(ctx, input) {
    if (!(await setStudentNote(siteScope(ctx), input.id, input.note, ctx.clock.now())))
      throw new OperationError('not_found', `This school has no student with the id ${input.id}.`);
    return profile(ctx, input.id);
  },
});

export const listStudentEnrollments = defineOperation({
  name: 'list_student_enrollments',
  title: 'List a student’s enrollments',
  description: 'Every enrollment of one student at this school, newest first, with progress. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/students/{id}/enrollments' },
  tool: false,
  input: z.object({ id: id('student'), ...pageInput }),
  output: z.object(pagedOutput(enrollment, 'enrollments')),
  annotations: READ_ONLY,
  userContent: ['items[].studentName', 'items[].courseTitle'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    if (!(await findStudent(scope, input.id))) throw new OperationError('not_found', `This school has no student with the id ${input.id}.`);
    const of = { studentId: input.id };
    const [page, total] = await Promise.all([pageEnrollments(scope, of, pageRequest(input), ctx.clock.now()), countEnrollments(scope, of)]);
    return paged(page, total, enrollmentOut);
  },
});

export const listCourseEnrollments = defineOperation({
  name: 'list_course_enrollments',
  title: 'List a course’s enrollments',
  description:
    'The roster of one course: every enrollment, newest first, with the student, access state, expiry, progress and last activity. ' +
    'Paged with a total and a nextCursor. For numbers about a course, get_course_analytics is shorter.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/courses/{id}/enrollments' },
  input: z.object({ id: id('course'), ...pageInput }),
  output: z.object(pagedOutput(enrollment, 'enrollments')),
  annotations: READ_ONLY,
  userContent: ['items[].studentName', 'items[].courseTitle'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    if (!(await courseExists(scope, input.id))) throw new OperationError('not_found', `This school has no course with the id ${input.id}.`);
    const of = { courseId: input.id };
    const [page, total] = await Promise.all([pageEnrollments(scope, of, pageRequest(input), ctx.clock.now()), countEnrollments(scope, of)]);
    return paged(page, total, enrollmentOut);
  },
});

export const getEnrollment: Operation = defineOperation({
  name: 'get_enrollment',
  title: 'Get an enrollment',
  description: 'One enrollment with its access state, expiry and progress.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/enrollments/{id}', resource: () => getEnrollment },
  tool: false,
  input: z.object({ id: id('enrollment') }),
  output: z.object({ enrollment }),
  annotations: READ_ONLY,
  userContent: ['enrollment.studentName', 'enrollment.courseTitle'],
  async handle(ctx, input) {
    return { enrollment: enrollmentOut(await enrollmentOr404(ctx, input.id)) };
  },
});

export const grantEnrollmentOperation = defineOperation({
  name: 'grant_enrollment',
  title: 'Grant an enrollment',
  description:
    'Enrolls a student of this school in a course, until expiresAt or for life (lifetime: true). An expired or revoked enrollment in the ' +
    'same course gets access again, with its progress. Answers the enrollment as stored.',
  audience: 'operator',
  scopes: ['students:write'],
  rest: { method: 'POST', path: '/enrollments', status: 201 },
  input: z.object({ studentId: id('student'), courseId: id('course'), ...accessInput }),
  output: z.object({ enrollment }),
  annotations: WRITE,
  userContent: ['enrollment.studentName', 'enrollment.courseTitle'],
  audit: (_input, output) => `enrollment:${output.enrollment.id}`,
  async handle(ctx, input) {
    const result = await grantEnrollment(siteScope(ctx), input.studentId, input.courseId, accessOf(input), ctx.clock.now());
    switch (result.kind) {
      case 'no_student':
        throw new OperationError('not_found', `This school has no person with the id ${input.studentId}.`);
      case 'no_course':
        throw new OperationError('not_found', `This school has no course with the id ${input.courseId}.`);
      case 'already_active':
        throw new OperationError(
          'conflict',
          `The student already has active access to this course (enrollment ${result.id}); change its access with change_enrollment_access.`,
        );
      case 'granted':
        return { enrollment: enrollmentOut(await enrollmentOr404(ctx, result.id)) };
    }
  },
});

export const changeEnrollmentAccess = defineOperation({
  name: 'change_enrollment_access',
  title: 'Change an enrollment’s access',
  description:
    'Sets when an enrollment’s access ends (expiresAt) or makes it lifetime access; a revoked enrollment gets access again. Shortening ' +
    'access can end it, so the first call answers a preview and a confirmationToken; call again with it to apply.',
  audience: 'operator',
  scopes: ['students:write'],
  rest: { method: 'PATCH', path: '/enrollments/{id}', resource: () => getEnrollment },
  input: z.object({ id: id('enrollment'), ...accessInput }),
  output: z.object({ enrollment }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  userContent: ['enrollment.studentName', 'enrollment.courseTitle'],
  audit: (input) => `enrollment:${input.id}`,
  async confirm(ctx, input) {
    const current = await enrollmentOr404(ctx, input.id);
    return {
      summary: `Give ${current.studentName} ${describeAccess(accessOf(input))} to "${current.courseTitle}" (now ${current.state}${current.lifetimeAccess ? ', lifetime' : current.accessExpiresAt ? `, until ${new Date(current.accessExpiresAt).toISOString()}` : ''}).`,
      details: { enrollment: enrollmentOut(current) },
    };
  },
  async handle(ctx, input) {
    const access = accessOf(input);
    if (!(await setAccess(siteScope(ctx), input.id, access)))
      throw new OperationError('not_found', `This school has no enrollment with the id ${input.id}.`);
    return { enrollment: enrollmentOut(await enrollmentOr404(ctx, input.id)) };
  },
});

export const revokeEnrollmentOperation = defineOperation({
  name: 'revoke_enrollment',
  title: 'Revoke an enrollment',
  description: 'Ends a student’s access to a course now; their progress is kept, and granting access again restores it.',
  audience: 'operator',
  scopes: ['students:write'],
  rest: { method: 'POST', path: '/enrollments/{id}/revoke', resource: () => getEnrollment },
  tool: false,
  input: z.object({ id: id('enrollment') }),
  output: z.object({ enrollment }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  userContent: ['enrollment.studentName', 'enrollment.courseTitle'],
  audit: (input) => `enrollment:${input.id}`,
  async handle(ctx, input) {
    if (!(await revokeEnrollment(siteScope(ctx), input.id, ctx.clock.now())))
      throw new OperationError('not_found', `This school has no enrollment with the id ${input.id}.`);
    return { enrollment: enrollmentOut(await enrollmentOr404(ctx, input.id)) };
  },
});

export const STUDENT_OPERATIONS: readonly Operation[] = [
  listStudentsOperation,
  getStudent,
  addStudentOperation,
  updateStudent,
  listStudentEnrollments,
  listCourseEnrollments,
  getEnrollment,
  grantEnrollmentOperation,
  changeEnrollmentAccess,
  revokeEnrollmentOperation,
];
