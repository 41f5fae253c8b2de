// The school domain's stored data (SPEC 1, 2.1, 2.2): catalogue, enrolments, purchases, events, inbox.
// Same conventions as schema.ts: every row has site_id, times are epoch ms, flags are 0/1 integers.
import type { Generated } from 'kysely';

/** What a notification is about; the same list names the kinds a member can subscribe to. */
export type NotificationKind = 'announcement' | 'course_update' | 'new_lecture' | 'event_reminder' | 'comment_reply' | 'access_expiring';

/** Where a notice of one kind is delivered. */
export type NotificationChannel = 'email' | 'in_app';

export interface CoursesTable {
  id: string;
  site_id: string;
  /** Unique per site, not globally: two schools may both sell "intro-to-python". */
  slug: string;
  title: string;
  subtitle: string | null;
  description: string;
  cover_image_url: string | null;
  price_cents: number;
  /** ISO 4217 code. */
  currency: string;
  published: number;
  created_at: number;
  /** Set when archived: hidden everywhere but the operator API; publishing clears it. */
  archived_at: number | null;
  /** Last change by an operator; null until the first. */
  updated_at: number | null;
}

export interface CourseSectionsTable {
  id: string;
  site_id: string;
  course_id: string;
  position: number;
  title: string;
}

export interface LecturesTable {
  id: string;
  site_id: string;
  /** Denormalised from the section so lecture counts per course need no join. */
  course_id: string;
  section_id: string;
  /** Order within the section. */
  position: number;
  title: string;
  duration_seconds: number;
}

export interface EnrollmentsTable {
  id: string;
  site_id: string;
  person_id: string;
  course_id: string;
  started_at: number;
  /** Null with lifetime access, or for an enrolment without an end (still ACTIVE). */
  access_expires_at: number | null;
  lifetime_access: number;
  completed_at: number | null;
  last_lecture_id: string | null;
  last_position_seconds: number | null;
  last_activity_at: number | null;
  /** Set when an operator revoked the access (the expiry is moved to that moment; progress stays). */
  revoked_at: number | null;
  /** Lectures completed (rows in lecture_progress), kept by its triggers (migration 028); writers leave it out. */
  lectures_done: Generated<number>;
  /**
   * Once a lecture is completed, the first lecture of the course in curriculum order not yet completed (null
   * when all are), kept by triggers and restamped after a curriculum change (migration 028); writers leave it out.
   */
  next_lecture_id: Generated<string | null>;
}

/** An order's states, in the order a refund moves it. */
export const ORDER_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type ProductType = 'course' | 'digital_product';

export interface CouponsTable {
  id: string;
  site_id: string;
  /** Upper case; codes match without regard to case. */
  code: string;
  /** Exactly one of percent_off and amount_off_cents (with currency) is set. */
  percent_off: number | null;
  amount_off_cents: number | null;
  currency: string | null;
  max_redemptions: number | null;
  expires_at: number | null;
  disabled_at: number | null;
  batch_id: string | null;
  created_at: number;
  updated_at: number | null;
}

/** The products a coupon applies to; a coupon without rows applies to every product. */
export interface CouponProductsTable {
  coupon_id: string;
  site_id: string;
  product_type: ProductType;
  product_id: string;
}

export interface MembershipPlansTable {
  id: string;
  site_id: string;
  name: string;
  description: string;
  price_cents: number;
  currency: string;
  /** month, year or one_time. */
  billing_interval: string;
  /** Days of access a payment gives; null: while the subscription runs (for good, one-time). */
  access_days: number | null;
  archived_at: number | null;
  created_at: number;
  updated_at: number | null;
}

/** The courses and products a plan includes. */
export interface PlanProductsTable {
  plan_id: string;
  site_id: string;
  product_type: ProductType;
  product_id: string;
}

export interface SubscriptionsTable {
  id: string;
  site_id: string;
  person_id: string;
  plan_id: string;
  started_at: number;
  current_period_end: number;
  /** 1: ends when the current period does. */
  cancel_at_period_end: number;
  cancelled_at: number | null;
  ended_at: number | null;
  created_at: number;
}

export interface PostsTable {
  id: string;
  site_id: string;
  slug: string;
  title: string;
  body: string;
  author_person_id: string | null;
  /** Null: a draft; in the future: scheduled; past: published. */
  publish_at: number | null;
  /** When its announcement went to the members' inboxes; null until then. */
  announced_at: number | null;
  created_at: number;
  updated_at: number | null;
}

export interface CommentsTable {
  id: string;
  site_id: string;
  person_id: string;
  /** Set for a comment on a lecture (with lecture_id) ... */
  course_id: string | null;
  lecture_id: string | null;
  /** ... or on a post. */
  post_id: string | null;
  /** The thread's first comment; null for that comment itself. */
  root_id: string | null;
  body: string;
  created_at: number;
}

export interface FormsTable {
  id: string;
  site_id: string;
  name: string;
  /** JSON: [{ name, label, type, required }], in order. */
  fields: string;
  created_at: number;
}

export interface FormSubmissionsTable {
  id: string;
  site_id: string;
  form_id: string;
  person_id: string | null;
  /** JSON object: field name to the value sent. */
  answers: string;
  submitted_at: number;
}

export interface PagesTable {
  id: string;
  site_id: string;
  slug: string;
  title: string;
  body: string;
  /** The number of the revision the content is. */
  revision: number;
  published_at: number | null;
  created_at: number;
  updated_at: number | null;
}

/** Every content of a page there has been, numbered from 1. */
export interface PageRevisionsTable {
  id: string;
  site_id: string;
  page_id: string;
  number: number;
  slug: string;
  title: string;
  body: string;
  author_person_id: string | null;
  restored_from: number | null;
  created_at: number;
}

export interface AssetsTable {
  id: string;
  site_id: string;
  /** Where the file is in the asset store. */
  storage_key: string;
  media_type: string;
  size: number;
  sha256: string;
  created_by: string | null;
  created_at: number;
}

export interface SiteAppearanceTable {
  site_id: string;
  logo_asset_id: string | null;
  /** #rrggbb */
  primary_color: string | null;
  background_color: string | null;
  /** One of the font stacks of http/pages/theme.ts. */
  font: string;
  /** JSON: [{ label, url }]. */
  navigation: string;
  updated_at: number;
}

export interface OrdersTable {
  id: string;
  site_id: string;
  /** Per site, from 1: what a receipt shows. */
  number: number;
  person_id: string;
  status: OrderStatus;
  currency: string;
  subtotal_cents: number;
  discount_cents: number;
  total_cents: number;
  refunded_cents: number;
  coupon_code: string | null;
  created_at: number;
  paid_at: number | null;
}

export interface OrderLinesTable {
  id: string;
  site_id: string;
  order_id: string;
  product_type: ProductType;
  product_id: string;
  title: string;
  quantity: number;
  unit_price_cents: number;
  amount_cents: number;
  /** The order's created_at, kept equal by triggers (migration 026); a writer may leave it out. */
  created_at: number | null;
}

export interface PaymentsTable {
  id: string;
  site_id: string;
  order_id: string;
  amount_cents: number;
  at: number;
  method: string;
}

export interface RefundsTable {
  id: string;
  site_id: string;
  order_id: string;
  amount_cents: number;
  at: number;
  reason: string;
}

export interface DailyRollupsTable {
  site_id: string;
  metric: string;
  /** '' for the whole school, `course:<id>` or `product:<type>:<id>`. */
  dim: string;
  /** YYYY-MM-DD in the site's time zone. */
  day: string;
  value: number;
}

export interface LearnerNumbersTable {
  site_id: string;
  person_id: string;
  /** 0, 1, 2, …: the learner's bit in the activity bitmaps. */
  no: number;
}

export interface ActivityBitmapsTable {
  site_id: string;
  /** A local day (YYYY-MM-DD) or month (YYYY-MM). */
  period: string;
  bits: Buffer;
  /** A digest of `bits`, so a node holding a copy asks for the bits only when they changed. */
  digest: string;
}

export interface LecturersTable {
  id: string;
  site_id: string;
  /** The lecturer's account, when they have one. */
  person_id: string | null;
  name: string;
  headline: string;
  bio: string;
  created_at: number;
  updated_at: number | null;
}

export interface CourseLecturersTable {
  site_id: string;
  course_id: string;
  lecturer_id: string;
  position: number;
}

export interface SiteSettingsTable {
  site_id: string;
  /** BCP 47 tag. */
  locale: string;
  /** IANA time zone: the days of analytics are this zone's days. */
  time_zone: string;
  /** ISO 4217 code of the school's prices. */
  currency: string;
  contact_email: string | null;
  updated_at: number;
}

export interface StudentNotesTable {
  site_id: string;
  person_id: string;
  note: string;
  updated_at: number;
}

export interface LectureProgressTable {
  site_id: string;
  enrollment_id: string;
  lecture_id: string;
  completed_at: number;
}

export interface DigitalProductsTable {
  id: string;
  site_id: string;
  slug: string;
  title: string;
  /** e.g. ebook, template, audio, video. */
  kind: string;
  description: string;
  price_cents: number;
  currency: string;
  published: number;
  created_at: number;
  /** When an operator archived it: hidden from sale, buyers keep it. */
  archived_at: number | null;
  updated_at: number | null;
}

/** What a member owns; deliberately no order number, coupon, refund or invoice (SPEC 2.2 rule). */
export interface DigitalProductPurchasesTable {
  id: string;
  site_id: string;
  person_id: string;
  product_id: string;
  purchased_at: number;
}

export interface ConsultingServicesTable {
  id: string;
  site_id: string;
  slug: string;
  title: string;
  /** e.g. one_on_one, code_review, group_session. */
  kind: string;
  description: string;
  duration_minutes: number;
  price_cents: number;
  currency: string;
  published: number;
  created_at: number;
}

/** What a member booked; no order fields, as for digital products (SPEC 2.2 rule). */
export interface ConsultingPurchasesTable {
  id: string;
  site_id: string;
  person_id: string;
  service_id: string;
  purchased_at: number;
}

export interface EventsTable {
  id: string;
  site_id: string;
  slug: string;
  title: string;
  description: string;
  starts_at: number;
  ends_at: number;
  /** IANA zone the event is announced in, e.g. Europe/Berlin; the instants above stay UTC. */
  time_zone: string;
  /** A physical place, for in-person events. */
  location: string | null;
  /** Only ever shown to registered members, never in public listings. */
  join_url: string | null;
  is_public: number;
  published: number;
  created_at: number;
  /** When an operator cancelled it; the row and its registrations stay as the record. */
  cancelled_at: number | null;
  cancel_reason: string | null;
  updated_at: number | null;
}

export interface EventRegistrationsTable {
  id: string;
  site_id: string;
  person_id: string;
  event_id: string;
  registered_at: number;
}

export interface NotificationsTable {
  id: string;
  site_id: string;
  person_id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string | null;
  read_at: number | null;
  created_at: number;
}

export interface NotificationSubscriptionsTable {
  site_id: string;
  person_id: string;
  kind: NotificationKind;
  channel: NotificationChannel;
  enabled: number;
  updated_at: number;
}

export interface SchoolTables {
  coupons: CouponsTable;
  posts: PostsTable;
  assets: AssetsTable;
  site_appearance: SiteAppearanceTable;
  pages: PagesTable;
  page_revisions: PageRevisionsTable;
  comments: CommentsTable;
  forms: FormsTable;
  form_submissions: FormSubmissionsTable;
  membership_plans: MembershipPlansTable;
  plan_products: PlanProductsTable;
  subscriptions: SubscriptionsTable;
  coupon_products: CouponProductsTable;
  orders: OrdersTable;
  order_lines: OrderLinesTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  daily_rollups: DailyRollupsTable;
  learner_numbers: LearnerNumbersTable;
  activity_bitmaps: ActivityBitmapsTable;
  lecturers: LecturersTable;
  course_lecturers: CourseLecturersTable;
  site_settings: SiteSettingsTable;
  student_notes: StudentNotesTable;
  courses: CoursesTable;
  course_sections: CourseSectionsTable;
  lectures: LecturesTable;
  enrollments: EnrollmentsTable;
  lecture_progress: LectureProgressTable;
  digital_products: DigitalProductsTable;
  digital_product_purchases: DigitalProductPurchasesTable;
  consulting_services: ConsultingServicesTable;
  consulting_purchases: ConsultingPurchasesTable;
  events: EventsTable;
  event_registrations: EventRegistrationsTable;
  notifications: NotificationsTable;
  notification_subscriptions: NotificationSubscriptionsTable;
}
