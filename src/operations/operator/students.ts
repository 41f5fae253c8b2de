// Operator operations of the students family (CONTRACT 6 students, scope students:*).
import { z } from 'zod';
import { countStudents, listStudents } from '../../school/operator-students.repository.js';
import { instant, iso, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

export const listStudentsOperation = defineOperation({
  name: 'list_students',
  title: 'List students',
  description:
    'People who hold the student role at this school, newest first, with their e-mail address and how many courses they are enrolled in here. ' +
    'Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['students:read'],
  rest: { method: 'GET', path: '/students' },
  input: z.object({ ...pageInput }),
  output: z.object(
    pagedOutput(
      z.object({
        id: z.string(),
        name: z.string(),
        email: z.string(),
        studentSince: instant('When the person became a student here'),
        enrollmentCount: z.number().int(),
      }),
      'students',
    ),
  ),
  annotations: READ_ONLY,
  userContent: ['items[].name'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([listStudents(scope, pageRequest(input)), countStudents(scope)]);
    return paged(page, total, (s) => ({
      id: s.id,
      name: s.name,
      email: s.email,
      studentSince: iso(s.studentSince),
      enrollmentCount: s.enrollmentCount,
    }));
  },
});
