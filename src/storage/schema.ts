// The stored data, one interface per table. Times are epoch milliseconds (bigint); flags are 0/1
// integers so one set of migrations serves SQLite and PostgreSQL alike. Tokens, codes, sessions and
// client secrets appear only as SHA-256 hashes; private keys only sealed.
import type { Generated } from 'kysely';
import type { SchoolTables } from './school-schema.js';

export interface SitesTable {
  id: string;
  slug: string;
  name: string;
  /** The site's origin (scheme://host[:port]) and OAuth issuer: the single source of every URL we print. */
  origin: string;
  variant: 'A' | 'B';
  mcp_beta: number;
  created_at: number;
}

export interface PeopleTable {
  id: string;
  email: string;
  name: string;
  picture_url: string | null;
  password_hash: string;
  created_at: number;
}

export interface SiteRolesTable {
  site_id: string;
  person_id: string;
  role: 'owner' | 'admin' | 'lecturer' | 'student';
  created_at: number;
}

export interface SessionsTable {
  id_hash: string;
  site_id: string;
  person_id: string;
  auth_time: number;
  created_at: number;
  expires_at: number;
}

export interface SignInThrottleTable {
  site_id: string;
  email: string;
  failures: number;
  locked_until: number;
  updated_at: number;
}

export interface MemberClientsTable {
  client_id: string;
  site_id: string;
  name: string;
  kind: 'public' | 'confidential';
  secret_hash: string | null;
  /** JSON array of redirect URIs; loopback ones match any port (RFC 8252 7.3). */
  redirect_uris: string;
  /** Space-delimited scopes the operator granted this application. */
  scopes: string;
  created_at: number;
}

export interface ConsentsTable {
  site_id: string;
  person_id: string;
  client_id: string;
  scope: string;
  updated_at: number;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  site_id: string;
  client_id: string;
  person_id: string;
  redirect_uri: string;
  scope: string;
  resource: string;
  code_challenge: string;
  nonce: string | null;
  auth_time: number;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
  /** The grant the first exchange created, so a replayed code can revoke it (RFC 6749 4.1.2). */
  grant_id: string | null;
}

export interface GrantsTable {
  id: string;
  site_id: string;
  client_id: string;
  person_id: string;
  scope: string;
  resource: string;
  created_at: number;
  revoked_at: number | null;
}

export interface AccessTokensTable {
  token_hash: string;
  site_id: string;
  grant_id: string;
  client_id: string;
  person_id: string;
  scope: string;
  resource: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  site_id: string;
  grant_id: string;
  client_id: string;
  person_id: string;
  scope: string;
  resource: string;
  created_at: number;
  expires_at: number;
  /** Set by the compare-and-swap that rotated this token; a second rotation finds it set and loses. */
  rotated_at: number | null;
  revoked_at: number | null;
  /**
   * Null since successors are computed (oauth/tokens/token-format.ts's successorTokens). A release before that
   * kept here the rotation's token response, sealed with a key derived from this (old) token, for its window.
   */
  replay_sealed: string | null;
  replay_until: number | null;
}

export interface SigningKeysTable {
  kid: string;
  site_id: string;
  alg: string;
  public_jwk: string;
  private_jwk_sealed: string;
  /** next: published, not yet signing; active: signing; retired: published until publish_until. */
  state: 'next' | 'active' | 'retired';
  created_at: number;
  activated_at: number | null;
  publish_until: number | null;
}

export interface AuditEventsTable {
  id: Generated<number>;
  site_id: string;
  at: number;
  kind: string;
  person_id: string | null;
  client_id: string | null;
  /** JSON object; never a secret or a token. */
  detail: string;
  /** What an operator write acted on, as `<type>:<id>` (e.g. `course:crs_1`); null for other events. */
  target: string | null;
  /** The request's id (X-Request-Id), to find its log lines. */
  request_id: string | null;
}

export interface IdempotencyKeysTable {
  site_id: string;
  client_id: string;
  idempotency_key: string;
  fingerprint: string;
  status: number | null;
  body: string | null;
  created_at: number;
  expires_at: number;
}

/** Kept by triggers on site_roles (migration 004). */
export interface SiteRoleCountsTable {
  site_id: string;
  role: string;
  n: number;
}

/** Audit events per site and kind, kept by triggers (migration 019); a total sums a kind's slots. */
export interface AuditEventCountsTable {
  site_id: string;
  kind: string;
  /** PostgreSQL: the writing connection's slot, so concurrent writers do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
}

/** Audit events with an app per site, app and kind, kept by triggers (migration 022); a total sums the slots. */
export interface AuditEventAppCountsTable {
  site_id: string;
  client_id: string;
  kind: string;
  /** PostgreSQL: the writing connection's slot, so concurrent writers do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
}

/** Enrollments per site and course, kept by triggers (migration 023); a roster's total sums the slots. */
export interface EnrollmentCountsTable {
  site_id: string;
  course_id: string;
  /** PostgreSQL: the writing connection's slot, so concurrent enrollments do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
}

/**
 * Each student's figures at a site, recomputed from their enrollments there by triggers (migration 034),
 * so the students of an enrollment state are counted from partial indexes over them.
 */
export interface StudentFiguresTable {
  site_id: string;
  person_id: string;
  /** Enrollments completed. */
  completed: number;
  /** Enrollments revoked. */
  revoked: number;
  /** Enrollments not revoked with access for life or without an end. */
  open_for_good: number;
  /** The earliest and latest end of the access of the enrollments not revoked with timed access. */
  timed_first_end: number | null;
  timed_last_end: number | null;
}

/**
 * Each student's latest learning activity at a site, the largest of their enrollments' (migration 035),
 * kept by triggers; a student without any has no row. The inactive are the students less a range of it.
 */
export interface StudentActivityTable {
  site_id: string;
  person_id: string;
  last_activity_at: number;
}

/**
 * Per site, course and UTC day of the student's latest activity (-1: never), how many students enrolled in
 * the course (migration 041), and how many of those enrollments are completed, revoked, and open for good
 * (not revoked, for life or without an end; migration 043).
 */
export interface CourseActivityDaysTable {
  site_id: string;
  course_id: string;
  day: number;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  n: number;
  completed: number;
  revoked: number;
  open_for_good: number;
}

/** Per site and UTC day of their latest activity (-1: never), how many students (migration 040). */
export interface StudentActivityDaysTable {
  site_id: string;
  day: number;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  n: number;
}

/**
 * Per site and UTC day of their latest activity (-1: never), how many students hold a completed, a revoked and
 * an open-for-good enrollment (migration 042).
 */
export interface StudentStateDaysTable {
  site_id: string;
  day: number;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  completed: number;
  revoked: number;
  open_for_good: number;
}

/** Per site, how many students have completed, revoked and open-for-good enrollments (migration 034). */
export interface StudentStateCountsTable {
  site_id: string;
  /** PostgreSQL: the writing connection's slot, so concurrent writers do not queue on one row. SQLite: 0. */
  slot: number;
  completed: number;
  revoked: number;
  open_for_good: number;
}

/**
 * SQLite only: people's names and addresses in an FTS5 trigram index, kept by triggers (migration 033),
 * for the students search. PostgreSQL searches people itself, through pg_trgm indexes.
 */
export interface PeopleSearchTable {
  person_id: string;
  name: string;
  email: string;
}

/**
 * Students (holders of the student role) enrolled per site and course, kept by triggers on enrollments
 * and roles (migration 031); the students list's total for a course sums the slots.
 */
export interface CourseStudentCountsTable {
  site_id: string;
  course_id: string;
  /** PostgreSQL: the writing connection's slot, so concurrent writers do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
  /** Of those students' enrollments in the course, how many are completed. */
  completed: Generated<number>;
  /** And how many revoked. */
  revoked: Generated<number>;
}

/**
 * Open enrollments with access for good (not revoked, not completed, lifetime or no end date) per site and
 * UTC day of last activity (-1: never active), kept by triggers (migration 025); a count sums the slots.
 */
export interface OpenEnrollmentActivityTable {
  site_id: string;
  day: number;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  n: number;
}

/**
 * Per site and course: enrollments started (completed, active or with a completed lecture), completed, and
 * the sum of their completed lectures, kept by triggers (migration 028); a figure sums the slots.
 */
export interface CourseLearningCountsTable {
  site_id: string;
  course_id: string;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  started: number;
  completed: number;
  lectures_done: number;
}

/** Enrollments not completed per course and the lecture they stopped at (their next lecture), kept by triggers (migration 028). */
export interface CourseStopsTable {
  site_id: string;
  course_id: string;
  lecture_id: string;
  /** As course_learning_counts.slot. */
  slot: number;
  n: number;
}

/**
 * A course's curriculum order changes (version, bumped by triggers on lectures and sections) and the one its
 * enrollments' next lectures were computed for (stamped); setting stamped to version recomputes them (migration 028).
 */
export interface CurriculumVersionsTable {
  site_id: string;
  course_id: string;
  version: number;
  stamped: number;
}

/** Orders with at least one line of a product, per site and product, kept by triggers (migration 027). */
export interface OrderProductCountsTable {
  site_id: string;
  product_id: string;
  /** PostgreSQL: the writing connection's slot, so concurrent orders do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
}

/** Orders per site and status, kept by triggers (migration 020); a total sums a status's slots. */
export interface OrderCountsTable {
  site_id: string;
  status: string;
  /** PostgreSQL: the writing connection's slot, so concurrent orders do not queue on one row. SQLite: 0. */
  slot: number;
  n: number;
}

/**
 * Orders per site, hour and day of creation (UTC) and status, with the sums of their amounts, kept by
 * triggers (migration 021); a range's summary sums its whole days' and hours' slots.
 */
export interface OrderSumsTable {
  site_id: string;
  unit: 'hour' | 'day';
  /** created_at divided by the unit's milliseconds (rounded down): hours or days since the epoch. */
  bucket: number;
  status: string;
  /** PostgreSQL: the writing connection's slot; a slot's row may be negative, only the sum over slots counts. SQLite: 0. */
  slot: number;
  n: number;
  total_cents: number;
  discount_cents: number;
  refunded_cents: number;
}

export interface SiteSuspensionsTable {
  site_id: string;
  person_id: string;
  suspended_at: number;
  reason: string;
}

export interface ConfirmationUsesTable {
  token_hash: string;
  expires_at: number;
}

/** Per-site decisions on Client ID Metadata Document clients (migration 016); absent: the platform default. */
export interface SiteClientDecisionsTable {
  site_id: string;
  client_id: string;
  decision: 'reviewed' | 'blocked';
  decided_by: string | null;
  decided_at: number;
}

/** Requests per app, person, UTC day and thing used (migration 016), added in batches by UsageRecorder. */
export interface AppUsageTable {
  site_id: string;
  client_id: string;
  person_id: string;
  day: string;
  what: string;
  write: number;
  requests: number;
  last_at: number;
}

export interface Database extends SchoolTables {
  site_client_decisions: SiteClientDecisionsTable;
  app_usage: AppUsageTable;
  sites: SitesTable;
  people: PeopleTable;
  site_roles: SiteRolesTable;
  sessions: SessionsTable;
  sign_in_throttle: SignInThrottleTable;
  member_clients: MemberClientsTable;
  consents: ConsentsTable;
  authorization_codes: AuthorizationCodesTable;
  grants: GrantsTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  signing_keys: SigningKeysTable;
  audit_events: AuditEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  confirmation_uses: ConfirmationUsesTable;
  site_suspensions: SiteSuspensionsTable;
  site_role_counts: SiteRoleCountsTable;
  audit_event_counts: AuditEventCountsTable;
  order_counts: OrderCountsTable;
  order_product_counts: OrderProductCountsTable;
  open_enrollment_activity: OpenEnrollmentActivityTable;
  enrollment_counts: EnrollmentCountsTable;
  course_student_counts: CourseStudentCountsTable;
  people_search: PeopleSearchTable;
  student_figures: StudentFiguresTable;
  student_activity: StudentActivityTable;
  student_activity_days: StudentActivityDaysTable;
  course_activity_days: CourseActivityDaysTable;
  student_state_days: StudentStateDaysTable;
  student_state_counts: StudentStateCountsTable;
  audit_event_app_counts: AuditEventAppCountsTable;
  order_sums: OrderSumsTable;
  course_learning_counts: CourseLearningCountsTable;
  course_stops: CourseStopsTable;
  curriculum_versions: CurriculumVersionsTable;
}
