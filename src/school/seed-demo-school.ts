// The demo school data of CONTRACT 3: both demo sites' catalogues and the demo people's learning data.
// Deterministic apart from `now`: row ids derive from the site and a name, dates from `now`.
import { createHash } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { NotificationChannel, NotificationKind } from '../storage/school-schema.js';

export interface DemoSchoolIds {
  academySiteId: string;
  studioSiteId: string;
  studentId: string;
  lecturerId: string;
  ownerId: string;
  visitorId: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A stable id for a seeded row: the same site and key always give the same id. */
function seedId(prefix: string, siteId: string, key: string): string {
  return `${prefix}_${createHash('sha256').update(`${siteId}:${key}`).digest('base64url').slice(0, 16)}`;
}

interface CourseSpec {
  slug: string;
  title: string;
  subtitle: string;
  description: string;
  priceCents: number;
  published: boolean;
  createdDaysAgo: number;
  sections: Array<{ title: string; lectures: Array<[title: string, seconds: number]> }>;
}

interface EnrollmentSpec {
  person: string;
  course: string;
  startedDaysAgo: number;
  lifetime?: boolean;
  /** Days from now; negative means the access already ended. */
  expiresInDays?: number;
  /** How many lectures, in curriculum order, are completed. */
  completedLectures: number;
  completedDaysAgo?: number;
  /** 1-based index of the last-watched lecture in curriculum order, with the position in it. */
  lastWatched?: [lectureNumber: number, positionSeconds: number];
  lastActivityDaysAgo?: number;
}

interface ItemSpec {
  slug: string;
  title: string;
  kind: string;
  description: string;
  priceCents: number;
  durationMinutes?: number;
}

interface EventSpec {
  slug: string;
  title: string;
  description: string;
  /** Days from today's midnight (UTC), and the UTC hour the event starts at. */
  inDays: number;
  atHourUtc: number;
  hours: number;
  timeZone: string;
  location?: string;
  joinUrl?: string;
  isPublic: boolean;
  published: boolean;
}

interface NotificationSpec {
  key: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string | null;
  createdAgo: number;
  /** Milliseconds after creation the member read it; absent while unread. */
  readAfter?: number;
}

interface SiteSeed {
  siteId: string;
  currency: string;
  courses: CourseSpec[];
  enrollments: EnrollmentSpec[];
  products: ItemSpec[];
  services: ItemSpec[];
  productPurchases: Array<{ person: string; product: string; daysAgo: number }>;
  servicePurchases: Array<{ person: string; service: string; daysAgo: number }>;
  events: EventSpec[];
  registrations: Array<{ person: string; event: string; daysAgo: number }>;
  notifications: Array<{ person: string; items: NotificationSpec[] }>;
  subscriptions: Array<{ person: string; kind: NotificationKind; channel: NotificationChannel; enabled: boolean }>;
}

function academy(ids: DemoSchoolIds): SiteSeed {
  const { studentId: student, lecturerId: lecturer, ownerId: owner } = ids;
  return {
    siteId: ids.academySiteId,
    currency: 'EUR',
    courses: [
      {
        slug: 'typescript-fundamentals',
        title: 'TypeScript Fundamentals',
        subtitle: 'Types, generics and the compiler, from zero to confident',
        description:
          'Learn TypeScript the way working teams use it: strict mode from day one, types that document intent, and generics you can read a month later.',
        priceCents: 14900,
        published: true,
        createdDaysAgo: 400,
        sections: [
          {
            title: 'Getting started',
            lectures: [
              ['Why TypeScript?', 420],
              ['Setting up the compiler', 610],
              ['Your first types', 780],
            ],
          },
          {
            title: 'Working with types',
            lectures: [
              ['Unions and narrowing', 905],
              ['Interfaces or type aliases?', 690],
              ['Generics in practice', 1140],
              ['Utility types', 830],
            ],
          },
          {
            title: 'Real projects',
            lectures: [
              ['Strict mode without tears', 960],
              ['Typing a REST client', 1320],
              ['Publishing a typed library', 870],
            ],
          },
        ],
      },
      {
        slug: 'web-accessibility-essentials',
        title: 'Web Accessibility Essentials',
        subtitle: 'Build interfaces everyone can use',
        description:
          'A practical route through WCAG: semantic HTML, keyboard support, contrast and forms, checked with screen readers and automated audits.',
        priceCents: 9900,
        published: true,
        createdDaysAgo: 300,
        sections: [
          {
            title: 'Foundations',
            lectures: [
              ['Who we build for', 540],
              ['WCAG in plain words', 880],
            ],
          },
          {
            title: 'Hands on',
            lectures: [
              ['Semantic HTML first', 760],
              ['Keyboard navigation', 920],
              ['Colour and contrast', 610],
              ['Accessible forms', 1010],
            ],
          },
          {
            title: 'Testing',
            lectures: [
              ['Screen reader basics', 1150],
              ['Automated audits', 700],
            ],
          },
        ],
      },
      {
        slug: 'sql-for-analysts',
        title: 'SQL for Analysts',
        subtitle: 'Answer business questions with queries',
        description: 'From SELECT to window functions, with a real sales dataset and a KPI dashboard to build at the end.',
        priceCents: 7900,
        published: true,
        createdDaysAgo: 500,
        sections: [
          {
            title: 'Querying',
            lectures: [
              ['SELECT and WHERE', 640],
              ['Sorting and limiting', 480],
              ['Aggregates', 820],
            ],
          },
          {
            title: 'Combining data',
            lectures: [
              ['Joins explained', 1100],
              ['Subqueries and CTEs', 990],
              ['Window functions', 1240],
            ],
          },
          { title: 'Reporting', lectures: [['Building a KPI dashboard', 1380]] },
        ],
      },
      {
        slug: 'product-photography-at-home',
        title: 'Product Photography at Home',
        subtitle: 'Shop-ready photos with a phone and a window',
        description: 'Light, compose and edit product photos that sell, without a studio or expensive gear.',
        priceCents: 4900,
        published: true,
        createdDaysAgo: 250,
        sections: [
          {
            title: 'Gear',
            lectures: [
              ['The phone you already own', 390],
              ['Light on a budget', 720],
            ],
          },
          {
            title: 'Shooting',
            lectures: [
              ['Composition for shops', 810],
              ['Editing in ten minutes', 930],
            ],
          },
        ],
      },
      {
        slug: 'public-speaking-for-engineers',
        title: 'Public Speaking for Engineers',
        subtitle: 'Talks and demos people remember',
        description: 'Structure a technical talk, design slides that help, survive live demos and enjoy the questions.',
        priceCents: 5900,
        published: true,
        createdDaysAgo: 120,
        sections: [
          {
            title: 'Preparing',
            lectures: [
              ['Finding your story', 600],
              ['Slides that help', 750],
            ],
          },
          {
            title: 'Delivering',
            lectures: [
              ['Handling nerves', 540],
              ['Live demos that survive', 880],
              ['Taking questions', 500],
            ],
          },
        ],
      },
      {
        slug: 'git-for-teams',
        title: 'Git for Teams',
        subtitle: 'Branches, reviews and conflicts without fear',
        description: 'The everyday Git a team needs: branching, reviewing pull requests and resolving conflicts calmly.',
        priceCents: 0,
        published: true,
        createdDaysAgo: 60,
        sections: [
          {
            title: 'Everyday Git',
            lectures: [
              ['Branches without fear', 700],
              ['Reviewing pull requests', 820],
              ['Resolving conflicts', 900],
            ],
          },
        ],
      },
      {
        slug: 'nodejs-performance-workshop',
        title: 'Node.js Performance Workshop',
        subtitle: 'Profiling, flame graphs and the event loop',
        description: 'Draft: recording starts next quarter.',
        priceCents: 19900,
        published: false,
        createdDaysAgo: 10,
        sections: [{ title: 'Profiling', lectures: [['Reading a flame graph', 1000]] }],
      },
    ],
    enrollments: [
      {
        person: student,
        course: 'typescript-fundamentals',
        startedDaysAgo: 120,
        lifetime: true,
        completedLectures: 5,
        lastWatched: [6, 754],
        lastActivityDaysAgo: 2,
      },
      {
        person: student,
        course: 'web-accessibility-essentials',
        startedDaysAgo: 30,
        expiresInDays: 60,
        completedLectures: 2,
        lastWatched: [3, 312],
        lastActivityDaysAgo: 5,
      },
      {
        person: student,
        course: 'sql-for-analysts',
        startedDaysAgo: 400,
        expiresInDays: -35,
        completedLectures: 6,
        lastWatched: [7, 1012],
        lastActivityDaysAgo: 40,
      },
      {
        person: student,
        course: 'product-photography-at-home',
        startedDaysAgo: 90,
        lifetime: true,
        completedLectures: 4,
        completedDaysAgo: 70,
        lastWatched: [4, 925],
        lastActivityDaysAgo: 70,
      },
      // Other people's rows on the same site: the student must never see them.
      {
        person: lecturer,
        course: 'public-speaking-for-engineers',
        startedDaysAgo: 45,
        lifetime: true,
        completedLectures: 1,
        lastWatched: [2, 88],
        lastActivityDaysAgo: 9,
      },
    ],
    products: [
      {
        slug: 'typescript-cheat-sheet',
        title: 'TypeScript Cheat Sheet',
        kind: 'ebook',
        description: 'Twelve printable pages of syntax, narrowing patterns and utility types.',
        priceCents: 1900,
      },
      {
        slug: 'accessible-component-templates',
        title: 'Accessible Component Templates',
        kind: 'template',
        description: 'Dialog, tabs, menu and combobox templates that pass keyboard and screen-reader checks.',
        priceCents: 2900,
      },
      {
        slug: 'deep-focus-coding-playlist',
        title: 'Deep Focus Coding Playlist',
        kind: 'audio',
        description: 'Three hours of calm, lyric-free music for long coding sessions.',
        priceCents: 900,
      },
    ],
    services: [
      {
        slug: 'code-review-session',
        title: '1:1 Code Review',
        kind: 'code_review',
        description: 'A lecturer reviews one pull request of yours live and explains every suggestion.',
        priceCents: 12000,
        durationMinutes: 45,
      },
      {
        slug: 'career-mentoring-call',
        title: 'Career Mentoring Call',
        kind: 'one_on_one',
        description: 'Thirty minutes on your next step: portfolio, interviews or a move into a new role.',
        priceCents: 8000,
        durationMinutes: 30,
      },
    ],
    productPurchases: [
      { person: student, product: 'typescript-cheat-sheet', daysAgo: 100 },
      { person: student, product: 'accessible-component-templates', daysAgo: 25 },
      { person: lecturer, product: 'deep-focus-coding-playlist', daysAgo: 15 },
    ],
    servicePurchases: [{ person: student, service: 'code-review-session', daysAgo: 12 }],
    events: [
      {
        slug: 'live-qa-typescript-6',
        title: 'Live Q&A: Migrating to TypeScript 6',
        description: 'Bring your tsconfig and your questions; we migrate a real project together.',
        inDays: 7,
        atHourUtc: 16,
        hours: 1,
        timeZone: 'Europe/Berlin',
        joinUrl: 'https://meet.demo-academy.test/live-qa-typescript-6',
        isPublic: true,
        published: true,
      },
      {
        slug: 'accessibility-audit-workshop',
        title: 'Accessibility Audit Workshop',
        description: 'Audit a real checkout flow with a screen reader and axe, in small groups.',
        inDays: 21,
        atHourUtc: 15,
        hours: 2,
        timeZone: 'America/New_York',
        joinUrl: 'https://meet.demo-academy.test/accessibility-audit-workshop',
        isPublic: true,
        published: true,
      },
      {
        slug: 'academy-meetup-berlin',
        title: 'Demo Academy Meetup Berlin',
        description: 'Lightning talks by students, pizza and a look at next term’s courses.',
        inDays: 35,
        atHourUtc: 17,
        hours: 3,
        timeZone: 'Europe/Berlin',
        location: 'Betahaus, Rudi-Dutschke-Straße 23, 10969 Berlin',
        isPublic: true,
        published: true,
      },
      {
        slug: 'students-office-hours',
        title: 'Students-only Office Hours',
        description: 'Drop in with questions about any course you are enrolled in.',
        inDays: 3,
        atHourUtc: 15,
        hours: 1,
        timeZone: 'Europe/London',
        joinUrl: 'https://meet.demo-academy.test/office-hours',
        isPublic: false,
        published: true,
      },
      {
        slug: 'welcome-webinar',
        title: 'Welcome Webinar',
        description: 'How Demo Academy works, for new students.',
        inDays: -14,
        atHourUtc: 17,
        hours: 1,
        timeZone: 'Europe/Berlin',
        joinUrl: 'https://meet.demo-academy.test/welcome',
        isPublic: true,
        published: true,
      },
      {
        slug: 'spring-hackathon',
        title: 'Spring Hackathon',
        description: 'Draft: date and venue to be confirmed.',
        inDays: 60,
        atHourUtc: 8,
        hours: 10,
        timeZone: 'Europe/Berlin',
        location: 'To be announced',
        isPublic: true,
        published: false,
      },
    ],
    registrations: [
      { person: student, event: 'live-qa-typescript-6', daysAgo: 4 },
      { person: student, event: 'academy-meetup-berlin', daysAgo: 2 },
      { person: lecturer, event: 'accessibility-audit-workshop', daysAgo: 6 },
    ],
    notifications: [
      {
        person: student,
        items: [
          {
            key: 'new-lecture-generics',
            kind: 'new_lecture',
            title: 'New lecture in TypeScript Fundamentals',
            body: '"Generics in practice" was re-recorded with TypeScript 6 examples.',
            link: '/courses/typescript-fundamentals',
            createdAgo: 3 * HOUR,
          },
          {
            key: 'reminder-live-qa',
            kind: 'event_reminder',
            title: 'Live Q&A: Migrating to TypeScript 6 is next week',
            body: 'You are registered. The join link is in your event registrations.',
            link: '/events/live-qa-typescript-6',
            createdAgo: 1 * DAY,
          },
          {
            key: 'expiring-accessibility',
            kind: 'access_expiring',
            title: 'Your access to Web Accessibility Essentials ends in two months',
            body: 'Finish the remaining lectures, or extend your access from the course page.',
            link: '/courses/web-accessibility-essentials',
            createdAgo: 2 * DAY,
          },
          {
            key: 'reply-narrowing',
            kind: 'comment_reply',
            title: 'Mara Lindqvist replied to your question',
            body: '"Use a discriminated union here: the compiler narrows it for you."',
            link: '/courses/typescript-fundamentals#discussion',
            createdAgo: 6 * DAY,
            readAfter: 5 * HOUR,
          },
          {
            key: 'update-sql',
            kind: 'course_update',
            title: 'SQL for Analysts has new exercises',
            body: 'Five new window-function exercises were added to "Combining data".',
            link: '/courses/sql-for-analysts',
            createdAgo: 20 * DAY,
            readAfter: 1 * DAY,
          },
          {
            key: 'welcome',
            kind: 'announcement',
            title: 'Welcome to Demo Academy',
            body: 'Your courses, products and events are all in your dashboard.',
            link: '/dashboard',
            createdAgo: 120 * DAY,
            readAfter: 1 * HOUR,
          },
        ],
      },
      {
        person: owner,
        items: [
          {
            key: 'owner-announcement',
            kind: 'announcement',
            title: 'Your school has 12 new students this week',
            body: 'See who joined in the admin area.',
            link: '/admin/students',
            createdAgo: 1 * DAY,
          },
        ],
      },
    ],
    subscriptions: [
      { person: student, kind: 'course_update', channel: 'email', enabled: true },
      { person: student, kind: 'event_reminder', channel: 'in_app', enabled: true },
      { person: lecturer, kind: 'comment_reply', channel: 'email', enabled: true },
    ],
  };
}

function studio(ids: DemoSchoolIds): SiteSeed {
  const { studentId: student, visitorId: visitor } = ids;
  return {
    siteId: ids.studioSiteId,
    currency: 'USD',
    courses: [
      {
        slug: 'watercolor-basics',
        title: 'Watercolor Basics',
        subtitle: 'Washes, layers and loose florals',
        description: 'Start painting with three colours and two brushes; finish with a loose floral bouquet.',
        priceCents: 6900,
        published: true,
        createdDaysAgo: 200,
        sections: [
          {
            title: 'Materials and washes',
            lectures: [
              ['Paper, paint and brushes', 480],
              ['Flat and graded washes', 720],
            ],
          },
          {
            title: 'Painting',
            lectures: [
              ['Wet on wet', 660],
              ['Loose florals', 1080],
            ],
          },
        ],
      },
      {
        slug: 'portrait-lighting',
        title: 'Portrait Lighting',
        subtitle: 'One light, many moods',
        description: 'Rembrandt, butterfly and split lighting with a single lamp and a reflector.',
        priceCents: 8900,
        published: true,
        createdDaysAgo: 150,
        sections: [
          {
            title: 'One light',
            lectures: [
              ['Rembrandt lighting', 840],
              ['Butterfly lighting', 760],
              ['Split lighting', 700],
            ],
          },
        ],
      },
      {
        slug: 'logo-design-sprint',
        title: 'Logo Design Sprint',
        subtitle: 'From brief to final mark in five days',
        description: 'A compact, client-ready process for designing logos.',
        priceCents: 12900,
        published: true,
        createdDaysAgo: 90,
        sections: [
          {
            title: 'The sprint',
            lectures: [
              ['Reading the brief', 540],
              ['Sketching fifty marks', 900],
              ['Presenting to the client', 780],
            ],
          },
        ],
      },
      {
        slug: 'figure-drawing',
        title: 'Figure Drawing',
        subtitle: 'Gesture, proportion and form',
        description: 'Draft: coming soon.',
        priceCents: 7900,
        published: false,
        createdDaysAgo: 5,
        sections: [{ title: 'Gesture', lectures: [['Thirty-second poses', 600]] }],
      },
    ],
    enrollments: [
      {
        person: student,
        course: 'watercolor-basics',
        startedDaysAgo: 20,
        expiresInDays: 180,
        completedLectures: 1,
        lastWatched: [2, 205],
        lastActivityDaysAgo: 3,
      },
      {
        person: visitor,
        course: 'portrait-lighting',
        startedDaysAgo: 50,
        lifetime: true,
        completedLectures: 2,
        lastWatched: [3, 415],
        lastActivityDaysAgo: 1,
      },
      { person: visitor, course: 'logo-design-sprint', startedDaysAgo: 10, expiresInDays: 355, completedLectures: 0 },
    ],
    products: [
      {
        slug: 'procreate-brush-pack',
        title: 'Procreate Watercolor Brush Pack',
        kind: 'asset_pack',
        description: 'Twenty-four watercolor brushes with real paper grain.',
        priceCents: 1500,
      },
    ],
    services: [
      {
        slug: 'portfolio-review',
        title: 'Portfolio Review',
        kind: 'one_on_one',
        description: 'An hour with a working designer going through your portfolio.',
        priceCents: 15000,
        durationMinutes: 60,
      },
    ],
    productPurchases: [{ person: visitor, product: 'procreate-brush-pack', daysAgo: 8 }],
    servicePurchases: [{ person: visitor, service: 'portfolio-review', daysAgo: 4 }],
    events: [
      {
        slug: 'open-studio-night',
        title: 'Open Studio Night',
        description: 'Paint together, share work in progress, meet the teachers.',
        inDays: 10,
        atHourUtc: 23,
        hours: 2,
        timeZone: 'America/Los_Angeles',
        location: 'Demo Studio, 1120 Mission St, San Francisco',
        isPublic: true,
        published: true,
      },
    ],
    registrations: [
      { person: visitor, event: 'open-studio-night', daysAgo: 1 },
      { person: student, event: 'open-studio-night', daysAgo: 2 },
    ],
    notifications: [],
    subscriptions: [],
  };
}

async function seedSite(db: Kysely<Database>, seed: SiteSeed, now: number): Promise<void> {
  const { siteId, currency } = seed;
  const today = Math.floor(now / DAY) * DAY;
  const courseIds = new Map<string, string>();
  const lectureIdsByCourse = new Map<string, string[]>();

  for (const course of seed.courses) {
    const courseId = seedId('crs', siteId, course.slug);
    courseIds.set(course.slug, courseId);
    await db
      .insertInto('courses')
      .values({
        id: courseId,
        site_id: siteId,
        slug: course.slug,
        title: course.title,
        subtitle: course.subtitle,
        description: course.description,
        cover_image_url: `/media/courses/${course.slug}.jpg`,
        price_cents: course.priceCents,
        currency,
        published: course.published ? 1 : 0,
        created_at: now - course.createdDaysAgo * DAY,
      })
      .execute();
    const lectureIds: string[] = [];
    const lectures: Insertable<Database['lectures']>[] = [];
    for (const [sectionIndex, section] of course.sections.entries()) {
      const sectionId = seedId('sec', siteId, `${course.slug}/${sectionIndex}`);
      await db
        .insertInto('course_sections')
        .values({ id: sectionId, site_id: siteId, course_id: courseId, position: sectionIndex + 1, title: section.title })
        .execute();
      for (const [lectureIndex, [title, seconds]] of section.lectures.entries()) {
        const lectureId = seedId('lec', siteId, `${course.slug}/${sectionIndex}/${lectureIndex}`);
        lectureIds.push(lectureId);
        lectures.push({
          id: lectureId,
          site_id: siteId,
          course_id: courseId,
          section_id: sectionId,
          position: lectureIndex + 1,
          title,
          duration_seconds: seconds,
        });
      }
    }
    if (lectures.length > 0) await db.insertInto('lectures').values(lectures).execute();
    lectureIdsByCourse.set(course.slug, lectureIds);
  }

  for (const spec of seed.enrollments) {
    const courseId = courseIds.get(spec.course)!;
    const lectureIds = lectureIdsByCourse.get(spec.course)!;
    const enrollmentId = seedId('enr', siteId, `${spec.person}/${spec.course}`);
    const startedAt = now - spec.startedDaysAgo * DAY;
    const lastLectureId = spec.lastWatched ? lectureIds[spec.lastWatched[0] - 1]! : null;
    await db
      .insertInto('enrollments')
      .values({
        id: enrollmentId,
        site_id: siteId,
        person_id: spec.person,
        course_id: courseId,
        started_at: startedAt,
        access_expires_at: spec.expiresInDays === undefined ? null : now + spec.expiresInDays * DAY,
        lifetime_access: spec.lifetime ? 1 : 0,
        completed_at: spec.completedDaysAgo === undefined ? null : now - spec.completedDaysAgo * DAY,
        last_lecture_id: lastLectureId,
        last_position_seconds: spec.lastWatched ? spec.lastWatched[1] : null,
        last_activity_at: spec.lastActivityDaysAgo === undefined ? null : now - spec.lastActivityDaysAgo * DAY,
      })
      .execute();
    const done = lectureIds.slice(0, spec.completedLectures);
    if (done.length > 0) {
      // Spread the completions evenly between the start and the last activity.
      const until = spec.lastActivityDaysAgo === undefined ? now : now - spec.lastActivityDaysAgo * DAY;
      const step = Math.floor((until - startedAt) / done.length);
      await db
        .insertInto('lecture_progress')
        .values(
          done.map((lectureId, index) => ({
            site_id: siteId,
            enrollment_id: enrollmentId,
            lecture_id: lectureId,
            completed_at: startedAt + step * (index + 1),
          })),
        )
        .execute();
    }
  }

  const productIds = new Map<string, string>();
  for (const product of seed.products) {
    const id = seedId('dpr', siteId, product.slug);
    productIds.set(product.slug, id);
    await db
      .insertInto('digital_products')
      .values({
        id,
        site_id: siteId,
        slug: product.slug,
        title: product.title,
        kind: product.kind,
        description: product.description,
        price_cents: product.priceCents,
        currency,
        published: 1,
        created_at: now - 365 * DAY,
      })
      .execute();
  }
  const serviceIds = new Map<string, string>();
  for (const service of seed.services) {
    const id = seedId('csv', siteId, service.slug);
    serviceIds.set(service.slug, id);
    await db
      .insertInto('consulting_services')
      .values({
        id,
        site_id: siteId,
        slug: service.slug,
        title: service.title,
        kind: service.kind,
        description: service.description,
        duration_minutes: service.durationMinutes ?? 60,
        price_cents: service.priceCents,
        currency,
        published: 1,
        created_at: now - 365 * DAY,
      })
      .execute();
  }
  for (const p of seed.productPurchases) {
    await db
      .insertInto('digital_product_purchases')
      .values({
        id: seedId('dpp', siteId, `${p.person}/${p.product}`),
        site_id: siteId,
        person_id: p.person,
        product_id: productIds.get(p.product)!,
        purchased_at: now - p.daysAgo * DAY,
      })
      .execute();
  }
  for (const p of seed.servicePurchases) {
    await db
      .insertInto('consulting_purchases')
      .values({
        id: seedId('csp', siteId, `${p.person}/${p.service}`),
        site_id: siteId,
        person_id: p.person,
        service_id: serviceIds.get(p.service)!,
        purchased_at: now - p.daysAgo * DAY,
      })
      .execute();
  }

  const eventIds = new Map<string, string>();
  for (const event of seed.events) {
    const id = seedId('evt', siteId, event.slug);
    eventIds.set(event.slug, id);
    const startsAt = today + event.inDays * DAY + event.atHourUtc * HOUR;
    await db
      .insertInto('events')
      .values({
        id,
        site_id: siteId,
        slug: event.slug,
        title: event.title,
        description: event.description,
        starts_at: startsAt,
        ends_at: startsAt + event.hours * HOUR,
        time_zone: event.timeZone,
        location: event.location ?? null,
        join_url: event.joinUrl ?? null,
        is_public: event.isPublic ? 1 : 0,
        published: event.published ? 1 : 0,
        created_at: now - 30 * DAY,
      })
      .execute();
  }
  for (const r of seed.registrations) {
    await db
      .insertInto('event_registrations')
      .values({
        id: seedId('reg', siteId, `${r.person}/${r.event}`),
        site_id: siteId,
        person_id: r.person,
        event_id: eventIds.get(r.event)!,
        registered_at: now - r.daysAgo * DAY,
      })
      .execute();
  }

  for (const inbox of seed.notifications) {
    if (inbox.items.length === 0) continue;
    await db
      .insertInto('notifications')
      .values(
        inbox.items.map((n) => ({
          id: seedId('ntf', siteId, `${inbox.person}/${n.key}`),
          site_id: siteId,
          person_id: inbox.person,
          kind: n.kind,
          title: n.title,
          body: n.body,
          link: n.link,
          read_at: n.readAfter === undefined ? null : now - n.createdAgo + n.readAfter,
          created_at: now - n.createdAgo,
        })),
      )
      .execute();
  }
  if (seed.subscriptions.length > 0) {
    await db
      .insertInto('notification_subscriptions')
      .values(
        seed.subscriptions.map((s) => ({
          site_id: siteId,
          person_id: s.person,
          kind: s.kind,
          channel: s.channel,
          enabled: s.enabled ? 1 : 0,
          updated_at: now - 90 * DAY,
        })),
      )
      .execute();
  }
}

/**
 * Fills Demo Academy and Demo Studio with the school data of CONTRACT 3. The sites, people and roles must
 * already exist; call it once, on a database without school rows, inside a transaction if it must be atomic.
 */
export async function seedDemoSchool(db: Kysely<Database>, ids: DemoSchoolIds, now: number): Promise<void> {
  await seedSite(db, academy(ids), now);
  await seedSite(db, studio(ids), now);
}
