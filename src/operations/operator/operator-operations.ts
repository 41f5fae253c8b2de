// Every operator operation (SPEC 4.4, 5.5; CONTRACT 6), family by family, in the order /openapi.json and
// tools/list show them. A family is one file of this folder.
import type { Operation } from '../operation.js';
import { ANALYTICS_OPERATIONS } from './analytics.js';
import { APPEARANCE_OPERATIONS } from './appearance.js';
import { COMMENT_OPERATIONS } from './comments.js';
import { COUPON_OPERATIONS } from './coupons.js';
import { COURSE_OPERATIONS } from './courses.js';
import { CURRICULUM_OPERATIONS } from './curriculum.js';
import { DIGITAL_PRODUCT_OPERATIONS } from './digital-products.js';
import { EVENT_OPERATIONS } from './events.js';
import { FORM_OPERATIONS } from './forms.js';
import { LECTURER_OPERATIONS } from './lecturers.js';
import { MEMBER_ADMIN_OPERATIONS } from './members.js';
import { MEMBERSHIP_OPERATIONS } from './memberships.js';
import { ORDER_OPERATIONS } from './orders.js';
import { PAGE_OPERATIONS } from './pages.js';
import { POST_OPERATIONS } from './posts.js';
import { SCHOOL_OPERATIONS } from './school.js';
import { STORAGE_OPERATIONS } from './storage.js';
import { STUDENT_OPERATIONS } from './students.js';

export const OPERATOR_OPERATIONS: readonly Operation[] = [
  ...COURSE_OPERATIONS,
  ...CURRICULUM_OPERATIONS,
  ...STUDENT_OPERATIONS,
  ...MEMBER_ADMIN_OPERATIONS,
  ...LECTURER_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...COUPON_OPERATIONS,
  ...MEMBERSHIP_OPERATIONS,
  ...POST_OPERATIONS,
  ...DIGITAL_PRODUCT_OPERATIONS,
  ...COMMENT_OPERATIONS,
  ...FORM_OPERATIONS,
  ...PAGE_OPERATIONS,
  ...STORAGE_OPERATIONS,
  ...APPEARANCE_OPERATIONS,
  ...SCHOOL_OPERATIONS,
  ...ANALYTICS_OPERATIONS,
  ...ORDER_OPERATIONS,
];
