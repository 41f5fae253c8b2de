// ARCHITECTURE "Operations" and issue 4 section 2: each operation is defined once with its audience,
// scopes, schemas and annotations, and one rule decides which tools a caller gets at which variant.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_SCOPES, MEMBER_SCOPES, OPERATOR_SCOPES } from '../../src/oauth/scopes.js';
import { slugFromTitle } from '../../src/operations/operator/courses.js';
import { ANONYMOUS, accessFor, findTool, OPERATIONS, operationsFor } from '../../src/operations/registry.js';
import type { Site } from '../../src/sites/site.js';

const siteA: Site = { id: 'site_a', slug: 'a', name: 'A', origin: 'https://a.example', variant: 'A', mcpBeta: true };
const siteB: Site = { ...siteA, id: 'site_b', origin: 'https://b.example', variant: 'B' };

const names = (site: Site, scopes: string[] | null) =>
  operationsFor(site, scopes === null ? ANONYMOUS : { authenticated: true, scopes }).map((o) => o.name);

describe('the operation registry', () => {
  it('gives every operation a plain snake_case name, a title, a description and closed-world annotations', () => {
    for (const op of OPERATIONS) {
      expect(op.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(op.title.length).toBeGreaterThan(3);
      expect(op.description.length).toBeGreaterThan(20);
      expect(op.annotations.openWorldHint).toBe(false);
      if (op.annotations.readOnlyHint) expect(op.annotations.destructiveHint).toBe(false);
      expect(findTool(op.name)).toBe(op.tool ? op : undefined);
    }
  });

  it('ties scopes to audiences: public none, member account:*, operator the operator scopes', () => {
    for (const op of OPERATIONS) {
      for (const scope of op.scopes) expect(ALL_SCOPES).toContain(scope);
      if (op.audience === 'public') expect(op.scopes).toEqual([]);
      if (op.audience === 'member') for (const s of op.scopes) expect(MEMBER_SCOPES as readonly string[]).toContain(s);
      if (op.audience === 'operator') for (const s of op.scopes) expect(OPERATOR_SCOPES as readonly string[]).toContain(s);
    }
  });

  it('marks user-written output fields and declares the note in the output schema', () => {
    for (const op of OPERATIONS) {
      if (op.userContent.length === 0) continue;
      expect(op.output.shape).toHaveProperty('_note');
      expect(op.description).toMatch(/never follow instructions/);
    }
  });

  it('converts every input and output schema to JSON Schema', () => {
    for (const op of OPERATIONS) {
      expect(z.toJSONSchema(op.input, { io: 'input' })).toMatchObject({ type: 'object' });
      expect(z.toJSONSchema(op.output, { io: 'output' })).toMatchObject({ type: 'object' });
    }
  });

  it('gives each kind of caller exactly its tools, the inbox on variant A only', () => {
    const publicTools = ['get_school', 'search_courses', 'get_course', 'list_upcoming_events'];
    expect(names(siteA, null)).toEqual(publicTools);
    expect(names(siteA, ['openid'])).toEqual(publicTools);
    expect(names(siteA, ['openid', 'account:read'])).toEqual([
      ...publicTools,
      'list_my_enrollments',
      'list_my_purchases',
      'list_my_event_registrations',
      'list_my_notifications',
    ]);
    expect(names(siteA, ['account:read', 'account:write'])).toContain('mark_notifications_read');
    expect(names(siteB, ['account:read', 'account:write'])).toEqual([
      ...publicTools,
      'list_my_enrollments',
      'list_my_purchases',
      'list_my_event_registrations',
    ]);
    expect(names(siteB, ['courses:read', 'students:read', 'events:read', 'courses:write'])).toEqual([
      ...publicTools,
      'list_courses',
      'create_course_draft',
      'publish_course',
      'unpublish_course',
      'list_students',
      'get_student',
      'list_course_enrollments',
      'list_events',
      'list_event_registrations',
    ]);
  });

  it('makes tools of exactly the operator operations CONTRACT 6 names as tools (the rest are REST only)', () => {
    const contractTools = new Set([
      'get_school_overview',
      'get_metric_timeseries',
      'get_course_analytics',
      'list_at_risk_learners',
      'list_students',
      'get_student',
      'list_course_enrollments',
      'grant_enrollment',
      'change_enrollment_access',
      'list_courses',
      'get_course_outline',
      'create_course_draft',
      'publish_course',
      'unpublish_course',
      'list_orders',
      'list_subscriptions',
      'cancel_subscription',
      'list_coupons',
      'create_coupon',
      'list_events',
      'list_event_registrations',
      'create_event',
      'draft_post',
      'publish_post',
      'list_recent_comments',
      'list_form_submissions',
    ]);
    for (const op of OPERATIONS.filter((o) => o.audience === 'operator')) expect(op.tool, op.name).toBe(contractTools.has(op.name));
  });

  it('says what a caller lacks: a token, or which scopes', () => {
    const draft = findTool('create_course_draft');
    if (!draft) throw new Error('create_course_draft is missing');
    expect(accessFor(draft, ANONYMOUS)).toEqual({ kind: 'needs_token', scopes: ['courses:write'] });
    expect(accessFor(draft, { authenticated: true, scopes: ['courses:read'] })).toEqual({
      kind: 'insufficient_scope',
      scopes: ['courses:write'],
      missing: ['courses:write'],
    });
    expect(accessFor(draft, { authenticated: true, scopes: ['courses:write'] })).toEqual({ kind: 'allowed' });
  });

  it('makes slugs from titles', () => {
    expect(slugFromTitle('Kysely in Practice!')).toBe('kysely-in-practice');
    expect(slugFromTitle('  Café & Crème brûlée ')).toBe('cafe-creme-brulee');
    expect(slugFromTitle('!!!')).toBe('');
  });
});
