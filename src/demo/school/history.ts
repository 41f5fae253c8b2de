// Twelve months of school life at a demo site (issue 9): learners, paid orders of its published courses
// and products (some with a coupon, some refunded), the enrollments the course orders open, and lecture
// progress, so that analytics and orders have real records to count. Generated from a fixed seed: the
// same history, relative to the day the demo is seeded, every time.
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { rebuildRollups } from '../../school/rollups.js';
import { insertAll, random } from './seeding.js';
import { seedAppConnections } from './app-connections.js';

const DAY = 86_400_000;
const DAYS = 365;
const LEARNERS = 120;

const FIRST = ['Amira', 'Ben', 'Chloe', 'Dario', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kaia', 'Luca'];
const LAST = ['Novak', 'Okafor', 'Petrov', 'Quinn', 'Rossi', 'Silva', 'Tanaka', 'Ueda', 'Varga', 'Weber'];

function coupon(siteId: string, id: string, code: string, terms: Record<string, unknown>, createdAt: number): Record<string, unknown> {
  return {
    id,
    site_id: siteId,
    code,
    percent_off: null,
    amount_off_cents: null,
    currency: null,
    max_redemptions: null,
    expires_at: null,
    disabled_at: null,
    batch_id: null,
    created_at: createdAt,
    updated_at: null,
    ...terms,
  };
}

export async function seedDemoHistory(db: Kysely<Database>, siteId: string, now: number, passwordHash: string): Promise<void> {
  const next = random(20260301);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;

  const courses = await db
    .selectFrom('courses')
    .select(['id', 'title', 'price_cents', 'currency'])
    .where('site_id', '=', siteId)
    .where('published', '=', 1)
    // By slug, not id: ids are random per seed, and the history must not depend on them.
    .orderBy('slug')
    .execute();
  const products = await db
    .selectFrom('digital_products')
    .select(['id', 'title', 'price_cents'])
    .where('site_id', '=', siteId)
    .where('published', '=', 1)
    .orderBy('slug')
    .execute();
  if (courses.length === 0) return;
  const currency = courses[0]?.currency ?? 'EUR';
  const lectures = await db
    .selectFrom('lectures as l')
    .innerJoin('course_sections as s', 's.id', 'l.section_id')
    .select(['l.id', 'l.course_id'])
    .where('l.site_id', '=', siteId)
    .orderBy('s.position')
    .orderBy('l.position')
    .execute();
  const lecturesOf = (courseId: string) => lectures.filter((l) => l.course_id === courseId).map((l) => l.id);

  await db
    .insertInto('site_settings')
    .values({
      site_id: siteId,
      locale: 'en-GB',
      time_zone: 'Europe/Berlin',
      currency,
      contact_email: 'hello@academy.demo.test',
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();

  // The coupons operators see: SPRING20 is the code the year's orders below use, so its redemption count
  // is theirs; a capped welcome code with an expiry, and a retired fixed-amount code for the first course.
  await insertAll(db, 'coupons', [
    coupon(siteId, 'cpn_demo_spring20', 'SPRING20', { percent_off: 20 }, now - DAYS * DAY),
    coupon(
      siteId,
      'cpn_demo_welcome10',
      'WELCOME10',
      { percent_off: 10, max_redemptions: 200, expires_at: now + 90 * DAY },
      now - 30 * DAY,
    ),
    coupon(siteId, 'cpn_demo_launch15', 'LAUNCH15', { amount_off_cents: 1500, currency, disabled_at: now - 60 * DAY }, now - 200 * DAY),
  ]);
  const firstCourse = courses[0];
  if (firstCourse)
    await insertAll(db, 'coupon_products', [
      { coupon_id: 'cpn_demo_launch15', site_id: siteId, product_type: 'course', product_id: firstCourse.id },
    ]);

  // Learners joined over the year, a few every week.
  const learners = Array.from({ length: LEARNERS }, (_, i) => {
    const joined = now - Math.floor((DAYS - 5) * (1 - i / LEARNERS)) * DAY - Math.floor(next() * DAY);
    return { id: `per_hist_${String(i + 1).padStart(3, '0')}`, name: `${pick(FIRST)} ${pick(LAST)}`, joined };
  });
  await insertAll(
    db,
    'people',
    learners.map((l, i) => ({
      id: l.id,
      email: `learner${String(i + 1).padStart(3, '0')}@demo.test`,
      name: l.name,
      picture_url: null,
      password_hash: passwordHash,
      created_at: l.joined,
    })),
  );
  await insertAll(
    db,
    'site_roles',
    learners.map((l) => ({ site_id: siteId, person_id: l.id, role: 'student', created_at: l.joined })),
  );

  const orders: Record<string, unknown>[] = [];
  const lines: Record<string, unknown>[] = [];
  const payments: Record<string, unknown>[] = [];
  const refunds: Record<string, unknown>[] = [];
  const enrollments: Record<string, unknown>[] = [];
  const progress: Record<string, unknown>[] = [];
  const enrolled = new Set<string>();
  let number = 0;

  for (let day = DAYS; day >= 1; day--) {
    const dayStart = now - day * DAY;
    const weekday = new Date(dayStart).getUTCDay();
    // Busier on weekdays, and growing through the year.
    const expected = (weekday === 0 || weekday === 6 ? 1.2 : 2.6) * (0.6 + (0.8 * (DAYS - day)) / DAYS);
    const count = Math.floor(expected + next());
    for (let k = 0; k < count; k++) {
      const joinedBefore = learners.filter((l) => l.joined < dayStart);
      if (joinedBefore.length === 0) break;
      const learner = pick(joinedBefore);
      const at = dayStart + Math.floor(next() * DAY);
      const isCourse = products.length === 0 || next() < 0.8;
      const item = isCourse ? pick(courses) : pick(products);
      if (isCourse && enrolled.has(`${learner.id}/${item.id}`)) continue;
      const id = `ord_hist_${String(++number).padStart(5, '0')}`;
      const price = Number(item.price_cents);
      const coupon = next() < 0.15 ? 'SPRING20' : null;
      const discount = coupon ? Math.round(price * 0.2) : 0;
      const total = price - discount;
      const refund = next() < 0.05 ? (next() < 0.5 ? total : Math.round(total / 2)) : 0;
      const refundedAt = at + Math.floor((1 + next() * 10) * DAY);
      const refunded = refund > 0 && refundedAt < now;
      orders.push({
        id,
        site_id: siteId,
        number,
        person_id: learner.id,
        status: refunded ? (refund === total ? 'refunded' : 'partially_refunded') : 'paid',
        currency,
        subtotal_cents: price,
        discount_cents: discount,
        total_cents: total,
        refunded_cents: refunded ? refund : 0,
        coupon_code: coupon,
        created_at: at,
        paid_at: at,
      });
      lines.push({
        id: `${id}-1`,
        site_id: siteId,
        order_id: id,
        product_type: isCourse ? 'course' : 'digital_product',
        product_id: item.id,
        title: item.title,
        quantity: 1,
        unit_price_cents: price,
        amount_cents: price,
      });
      payments.push({ id: `pay_${id}`, site_id: siteId, order_id: id, amount_cents: total, at, method: next() < 0.7 ? 'card' : 'paypal' });
      if (refunded)
        refunds.push({
          id: `rfd_${id}`,
          site_id: siteId,
          order_id: id,
          amount_cents: refund,
          at: refundedAt,
          reason: 'Requested by the student',
        });
      if (!isCourse) continue;

      // The course order opens an enrollment; the learner works through some of it.
      enrolled.add(`${learner.id}/${item.id}`);
      const enrollmentId = `enr_hist_${String(number).padStart(5, '0')}`;
      const own = lecturesOf(item.id);
      const share = next();
      const done = share < 0.15 ? 0 : share > 0.75 ? own.length : Math.floor(own.length * share);
      let last = at;
      for (let i = 0; i < done; i++) {
        last = Math.min(now - 3600_000, last + Math.floor((0.2 + next() * 3) * DAY));
        progress.push({ site_id: siteId, enrollment_id: enrollmentId, lecture_id: own[i], completed_at: last });
      }
      const complete = done > 0 && done === own.length;
      const lifetime = next() < 0.4;
      enrollments.push({
        id: enrollmentId,
        site_id: siteId,
        person_id: learner.id,
        course_id: item.id,
        started_at: at,
        access_expires_at: lifetime ? null : at + 365 * DAY,
        lifetime_access: lifetime ? 1 : 0,
        completed_at: complete ? last : null,
        last_lecture_id: done > 0 ? own[done - 1] : null,
        last_position_seconds: done > 0 ? 0 : null,
        last_activity_at: done > 0 ? last : null,
        revoked_at: null,
      });
    }
  }
  await insertAll(db, 'orders', orders);
  await insertAll(db, 'order_lines', lines);
  await insertAll(db, 'payments', payments);
  await insertAll(db, 'refunds', refunds);
  await insertAll(db, 'enrollments', enrollments);
  await insertAll(db, 'lecture_progress', progress);
  await seedMemberships(db, siteId, now, courses, learners);
  // Lectures in course (slug) order, then section and lecture position: the same list on every seed.
  const orderedLectures = courses.flatMap((c) => lecturesOf(c.id).map((id) => ({ id, course_id: c.id })));
  await seedCommentsAndForms(db, siteId, now, orderedLectures, learners);
  await seedPages(db, siteId, now);
  await seedPosts(db, siteId, now);
  await seedAppConnections(db, siteId, now, learners);
  await rebuildRollups(db, siteId);
}

/**
 * Membership plans and a year of subscriptions to them, from a generator of their own so the order
 * history above stays as it was: running, set to end, ended and unpaid ones, for the lists to mean something.
 */
async function seedMemberships(
  db: Kysely<Database>,
  siteId: string,
  now: number,
  courses: ReadonlyArray<{ id: string; currency: string }>,
  learners: ReadonlyArray<{ id: string; joined: number }>,
): Promise<void> {
  const next = random(20260401);
  const currency = courses[0]?.currency ?? 'EUR';
  const plan = (id: string, name: string, price: number, interval: string, access: number | null, archived: number | null) => ({
    id,
    site_id: siteId,
    name,
    description: `${name}: every course of Demo Academy while it runs.`,
    price_cents: price,
    currency,
    billing_interval: interval,
    access_days: access,
    archived_at: archived,
    created_at: now - DAYS * DAY,
    updated_at: archived,
  });
  await insertAll(db, 'membership_plans', [
    plan('pln_demo_monthly', 'All-access monthly', 1900, 'month', null, null),
    plan('pln_demo_yearly', 'All-access yearly', 19000, 'year', null, null),
    plan('pln_demo_starter', 'Starter pass', 4900, 'one_time', 365, now - 90 * DAY),
  ]);
  await insertAll(
    db,
    'plan_products',
    ['pln_demo_monthly', 'pln_demo_yearly']
      .flatMap((planId) => courses.map((c) => ({ plan_id: planId, site_id: siteId, product_type: 'course', product_id: c.id })))
      .concat(courses.slice(0, 2).map((c) => ({ plan_id: 'pln_demo_starter', site_id: siteId, product_type: 'course', product_id: c.id }))),
  );
  const subscriptions: Record<string, unknown>[] = [];
  for (let i = 0; i < 36; i++) {
    const learner = learners[(i * 7) % learners.length];
    if (!learner) continue;
    const yearly = next() < 0.3;
    const period = (yearly ? 365 : 30) * DAY;
    const started = Math.min(now - DAY, learner.joined + Math.floor(next() * 30 * DAY));
    const periods = Math.max(1, Math.ceil((now - started) / period));
    const fate = next();
    const row = {
      id: `sub_demo_${String(i + 1).padStart(3, '0')}`,
      site_id: siteId,
      person_id: learner.id,
      plan_id: yearly ? 'pln_demo_yearly' : 'pln_demo_monthly',
      started_at: started,
      current_period_end: started + periods * period,
      cancel_at_period_end: 0,
      cancelled_at: null as number | null,
      ended_at: null as number | null,
      created_at: started,
    };
    if (fate < 0.15) {
      const ended = started + Math.floor(next() * (now - started));
      row.ended_at = ended;
      row.cancelled_at = ended;
      row.current_period_end = started + Math.max(1, Math.ceil((ended - started) / period)) * period;
    } else if (fate < 0.3) {
      row.cancel_at_period_end = 1;
      row.cancelled_at = now - Math.floor((1 + next() * 5) * DAY);
    } else if (fate < 0.38) {
      row.current_period_end = now - Math.floor((1 + next() * 5) * DAY);
    }
    subscriptions.push(row);
  }
  await insertAll(db, 'subscriptions', subscriptions);
}

const QUESTIONS = [
  'Is there a way to download the slides for this lecture?',
  'I get a type error at 12:40 when I follow along. What am I missing?',
  'Could you explain the difference between the two approaches again?',
  'Great lecture! Will there be a follow-up on testing?',
  'The code in the second example does not compile for me on Node 20.',
  'Which book would you recommend to go deeper into this topic?',
  'Is the exercise at the end graded, or just for practice?',
  'How does this compare to what we did in the previous section?',
];
const STAFF_REPLIES = [
  'Thanks for asking! The slides are under the lecture’s resources tab.',
  'Good catch: there is a typo in the video. The fixed code is in the course repository.',
  'Happy to: the first one trades memory for speed; the second keeps it simple.',
];
const PEER_REPLIES = ['Same question here.', 'I had the same problem, restarting the editor helped me.'];

/**
 * Comment threads on the Academy's lectures (some answered by the lecturer, some only by other learners,
 * some waiting) and two forms with a year of submissions, from a generator of their own.
 */
async function seedCommentsAndForms(
  db: Kysely<Database>,
  siteId: string,
  now: number,
  lectures: ReadonlyArray<{ id: string; course_id: string }>,
  learners: ReadonlyArray<{ id: string; name: string; joined: number }>,
): Promise<void> {
  const next = random(20260501);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const lecturer = await db.selectFrom('people').select('id').where('email', '=', 'lecturer@demo.test').executeTakeFirst();
  const comments: Record<string, unknown>[] = [];
  for (let i = 0; i < 60 && lectures.length > 0; i++) {
    const lecture = pick(lectures);
    const author = pick(learners);
    const at = Math.max(author.joined, now - Math.floor(next() * DAYS) * DAY) + Math.floor(next() * DAY);
    if (at >= now) continue;
    const root = `cmt_demo_${String(i + 1).padStart(3, '0')}`;
    const base = { site_id: siteId, course_id: lecture.course_id, lecture_id: lecture.id, post_id: null };
    comments.push({ id: root, ...base, person_id: author.id, root_id: null, body: pick(QUESTIONS), created_at: at });
    const fate = next();
    const replyAt = Math.min(now - 60_000, at + Math.floor((0.2 + next() * 3) * DAY));
    if (fate < 0.6 && lecturer)
      comments.push({ id: `${root}_r1`, ...base, person_id: lecturer.id, root_id: root, body: pick(STAFF_REPLIES), created_at: replyAt });
    else if (fate < 0.75)
      comments.push({
        id: `${root}_r1`,
        ...base,
        person_id: pick(learners).id,
        root_id: root,
        body: pick(PEER_REPLIES),
        created_at: replyAt,
      });
  }
  await insertAll(db, 'comments', comments);

  const field = (name: string, label: string, type: string, required: boolean) => ({ name, label, type, required });
  await insertAll(db, 'forms', [
    {
      id: 'frm_demo_contact',
      site_id: siteId,
      name: 'Contact us',
      fields: JSON.stringify([
        field('name', 'Your name', 'text', true),
        field('email', 'E-mail', 'email', true),
        field('message', 'Message', 'textarea', true),
      ]),
      created_at: now - DAYS * DAY,
    },
    {
      id: 'frm_demo_waitlist',
      site_id: siteId,
      name: 'Course waitlist',
      fields: JSON.stringify([
        field('email', 'E-mail', 'email', true),
        field('updates', 'Send me news about new courses', 'checkbox', false),
      ]),
      created_at: now - 120 * DAY,
    },
  ]);
  const submissions: Record<string, unknown>[] = [];
  for (let i = 0; i < 48; i++) {
    const contact = next() < 0.6;
    const who = pick(learners);
    const at = now - Math.floor(next() * (contact ? DAYS : 120) * DAY);
    const email = `visitor${String(i + 1).padStart(2, '0')}@example.test`;
    submissions.push({
      id: `sbm_demo_${String(i + 1).padStart(3, '0')}`,
      site_id: siteId,
      form_id: contact ? 'frm_demo_contact' : 'frm_demo_waitlist',
      person_id: next() < 0.3 ? who.id : null,
      answers: JSON.stringify(contact ? { name: who.name, email, message: pick(QUESTIONS) } : { email, updates: next() < 0.5 }),
      submitted_at: at,
    });
  }
  await insertAll(db, 'form_submissions', submissions);
}

/** Two pages of the school, one with a history of edits, the other still a draft. */
async function seedPages(db: Kysely<Database>, siteId: string, now: number): Promise<void> {
  const about = [
    { title: 'About us', body: 'Demo Academy teaches practical web development.' },
    { title: 'About us', body: 'Demo Academy teaches practical web development, in small online courses.' },
    { title: 'About Demo Academy', body: 'Demo Academy teaches practical web development, in small online courses with real projects.' },
  ];
  const faq = { title: 'Frequently asked questions', body: '## Do I keep access?\n\nYes: lifetime access unless a course says otherwise.' };
  const last = about.at(-1) ?? about[0];
  await insertAll(db, 'pages', [
    {
      id: 'pag_demo_about',
      site_id: siteId,
      slug: 'about',
      title: last?.title,
      body: last?.body,
      revision: about.length,
      published_at: now - 300 * DAY,
      created_at: now - 320 * DAY,
      updated_at: now - 40 * DAY,
    },
    {
      id: 'pag_demo_faq',
      site_id: siteId,
      slug: 'faq',
      ...faq,
      revision: 1,
      published_at: null,
      created_at: now - 10 * DAY,
      updated_at: null,
    },
  ]);
  await insertAll(db, 'page_revisions', [
    ...about.map((content, i) => ({
      id: `prv_demo_about_${i + 1}`,
      site_id: siteId,
      page_id: 'pag_demo_about',
      number: i + 1,
      slug: 'about',
      ...content,
      author_person_id: null,
      restored_from: null,
      created_at: now - (320 - i * 140) * DAY,
    })),
    {
      id: 'prv_demo_faq_1',
      site_id: siteId,
      page_id: 'pag_demo_faq',
      number: 1,
      slug: 'faq',
      ...faq,
      author_person_id: null,
      restored_from: null,
      created_at: now - 10 * DAY,
    },
  ]);
}

/**
 * Posts: two published ones (already announced: the scheduler does not tell members about last year's
 * news on the first start), one scheduled three days ahead, one draft.
 */
async function seedPosts(db: Kysely<Database>, siteId: string, now: number): Promise<void> {
  const post = (id: string, slug: string, title: string, body: string, publishAt: number | null, createdAt: number) => ({
    id,
    site_id: siteId,
    slug,
    title,
    body,
    author_person_id: null,
    publish_at: publishAt,
    announced_at: publishAt !== null && publishAt <= now ? publishAt : null,
    created_at: createdAt,
    updated_at: null,
  });
  await insertAll(db, 'posts', [
    post(
      'pst_demo_welcome',
      'welcome-to-demo-academy',
      'Welcome to Demo Academy',
      'Our first courses are open.',
      now - 300 * DAY,
      now - 301 * DAY,
    ),
    post('pst_demo_spring', 'spring-sale', 'Spring sale: 20% off', 'Use SPRING20 at checkout.', now - 60 * DAY, now - 61 * DAY),
    post(
      'pst_demo_live',
      'live-qa-next-week',
      'Live Q&A next week',
      'Bring your questions about TypeScript 6.',
      now + 3 * DAY,
      now - 2 * DAY,
    ),
    post('pst_demo_draft', 'summer-plans', 'Summer plans', 'Draft: what we are building next.', null, now - DAY),
  ]);
}
