// The introspected schema is the member API's documentation (issue 3): variants, descriptions, and the
// SPEC 2.2 rule that purchase connections carry no order fields. Schema-only: no database involved.
import { getIntrospectionQuery, graphqlSync, type IntrospectionQuery, type IntrospectionType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { memberSchema } from '../../src/member-api/schema.js';

function introspect(variant: 'A' | 'B'): IntrospectionQuery {
  const result = graphqlSync({
    schema: memberSchema(variant),
    source: getIntrospectionQuery({ descriptions: true, schemaDescription: true }),
  });
  expect(result.errors).toBeUndefined();
  return result.data as unknown as IntrospectionQuery;
}

function typeNamed(schema: IntrospectionQuery, name: string): IntrospectionType | undefined {
  return schema.__schema.types.find((t) => t.name === name);
}

function fieldNames(schema: IntrospectionQuery, name: string): string[] {
  const type = typeNamed(schema, name);
  return type && 'fields' in type && type.fields ? type.fields.map((f) => f.name) : [];
}

const ownTypes = (schema: IntrospectionQuery) =>
  schema.__schema.types.filter((t) => !t.name.startsWith('__') && !['String', 'Int', 'Boolean', 'ID', 'Float'].includes(t.name));

const ORDER_WORDS = /order|coupon|refund|invoice|receipt|discount/i;

describe('member API schema', () => {
  it('gives both variants the common viewer fields', () => {
    for (const variant of ['A', 'B'] as const) {
      expect(fieldNames(introspect(variant), 'Viewer')).toEqual(
        expect.arrayContaining(['id', 'name', 'email', 'enrolledCourses', 'digitalProducts', 'consultingServices', 'eventRegistrations']),
      );
    }
  });

  it('gives variant A the schools, inbox fields and the three mutations', () => {
    const a = introspect('A');
    expect(fieldNames(a, 'Viewer')).toEqual(
      expect.arrayContaining(['schools', 'notifications', 'unreadNotificationCount', 'notificationSubscriptions']),
    );
    expect(a.__schema.mutationType?.name).toBe('Mutation');
    expect(fieldNames(a, 'Mutation').sort()).toEqual([
      'markAllNotificationsRead',
      'markNotificationRead',
      'updateNotificationSubscription',
    ]);
  });

  it('gives variant B no inbox or schools fields and no Mutation type', () => {
    const b = introspect('B');
    expect(fieldNames(b, 'Viewer').sort()).toEqual(
      ['consultingServices', 'digitalProducts', 'email', 'enrolledCourses', 'eventRegistrations', 'id', 'name'].sort(),
    );
    expect(b.__schema.mutationType).toBeNull();
    for (const name of ['Mutation', 'Notification', 'NotificationConnection', 'NotificationSubscription', 'NotificationKind', 'School']) {
      expect(typeNamed(b, name), name).toBeUndefined();
    }
  });

  it('gives purchase nodes no order number, coupon, refund or invoice fields', () => {
    for (const variant of ['A', 'B'] as const) {
      const schema = introspect(variant);
      const purchaseTypes = [
        'PurchasedDigitalProduct',
        'PurchasedDigitalProductEdge',
        'PurchasedDigitalProductConnection',
        'PurchasedConsultingService',
        'PurchasedConsultingServiceEdge',
        'PurchasedConsultingServiceConnection',
      ];
      for (const name of purchaseTypes) {
        const fields = fieldNames(schema, name);
        expect(fields.length, name).toBeGreaterThan(0);
        expect(
          fields.filter((f) => ORDER_WORDS.test(f)),
          `${variant} ${name}`,
        ).toEqual([]);
      }
      expect(fieldNames(schema, 'PurchasedDigitalProduct').sort()).toEqual(['id', 'kind', 'productId', 'purchasedAt', 'title']);
      expect(fieldNames(schema, 'PurchasedConsultingService').sort()).toEqual([
        'durationMinutes',
        'id',
        'kind',
        'purchasedAt',
        'serviceId',
        'title',
      ]);
    }
  });

  it('has no order-like type or field anywhere in either variant', () => {
    for (const variant of ['A', 'B'] as const) {
      for (const type of ownTypes(introspect(variant))) {
        expect(type.name).not.toMatch(ORDER_WORDS);
        if ('fields' in type && type.fields)
          for (const f of type.fields) expect(`${type.name}.${f.name}`).not.toMatch(/\.(.*)(order|coupon|refund|invoice)/i);
      }
    }
  });

  it('describes every type, field, argument and enum value', () => {
    for (const variant of ['A', 'B'] as const) {
      const schema = introspect(variant);
      expect(schema.__schema.description).toEqual(expect.any(String));
      for (const type of ownTypes(schema)) {
        expect(type.description, type.name).toBeTruthy();
        if ('fields' in type && type.fields) {
          for (const field of type.fields) {
            expect(field.description, `${type.name}.${field.name}`).toBeTruthy();
            for (const arg of field.args) expect(arg.description, `${type.name}.${field.name}(${arg.name})`).toBeTruthy();
          }
        }
        if ('enumValues' in type && type.enumValues) {
          for (const value of type.enumValues) expect(value.description, `${type.name}.${value.name}`).toBeTruthy();
        }
      }
    }
  });

  it('gives enrolment nodes the SPEC 2.2 fields and the resume, progress and access fields', () => {
    expect(fieldNames(introspect('B'), 'Enrollment')).toEqual(
      expect.arrayContaining([
        'slug',
        'expireDate',
        'hasLifetimeAccess',
        'lastWatchedLecture',
        'course',
        'progressPercent',
        'completedLectures',
        'totalLectures',
        'startedAt',
        'completedAt',
        'accessState',
        'lastActivityAt',
      ]),
    );
    expect(fieldNames(introspect('B'), 'LastWatchedLecture')).toEqual(['lectureId', 'positionSeconds', 'title', 'durationSeconds']);
    expect(fieldNames(introspect('B'), 'Course')).toEqual(expect.arrayContaining(['slug', 'title', 'coverImageUrl', 'lectureCount']));
    const state = typeNamed(introspect('B'), 'AccessState');
    expect(state && 'enumValues' in state ? state.enumValues.map((v) => v.name) : []).toEqual(['ACTIVE', 'EXPIRED']);
  });

  it('gives every connection first (default 20) and after, and nodes, edges, pageInfo and totalCount', () => {
    const schema = introspect('A');
    const viewer = typeNamed(schema, 'Viewer');
    const connections = viewer && 'fields' in viewer ? viewer.fields.filter((f) => f.args.some((a) => a.name === 'first')) : [];
    expect(connections.map((f) => f.name).sort()).toEqual([
      'consultingServices',
      'digitalProducts',
      'enrolledCourses',
      'eventRegistrations',
      'notifications',
    ]);
    for (const field of connections) {
      expect(field.args.find((a) => a.name === 'first')?.defaultValue).toBe('20');
      expect(field.args.map((a) => a.name)).toContain('after');
    }
    for (const name of ['EnrollmentConnection', 'NotificationConnection']) {
      expect(fieldNames(schema, name)).toEqual(['nodes', 'edges', 'pageInfo', 'totalCount']);
    }
    expect(fieldNames(schema, 'PageInfo')).toEqual(['hasNextPage', 'endCursor']);
  });

  it('builds each variant once', () => {
    expect(memberSchema('A')).toBe(memberSchema('A'));
    expect(memberSchema('A')).not.toBe(memberSchema('B'));
  });
});
