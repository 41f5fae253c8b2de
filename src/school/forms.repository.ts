// Forms and what people sent through them, as operators read them (CONTRACT 6 forms): the forms with their
// fields and submission counts, and a form's submissions since a moment, oldest first so a reader that
// keeps its last `since` misses none.
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';

export interface FormField {
  name: string;
  label: string;
  type: 'text' | 'email' | 'textarea' | 'select' | 'checkbox';
  required: boolean;
}

export interface Form {
  id: string;
  name: string;
  fields: FormField[];
  submissionCount: number;
  createdAt: number;
}

export interface FormSubmission {
  id: string;
  formId: string;
  personId: string | null;
  answers: Record<string, string | boolean>;
  submittedAt: number;
}

const FORMS = 'operator_forms';

/** Stored JSON read back; a row written by an older version that does not parse reads as empty. */
function parsed<T>(json: string, empty: T): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return empty;
  }
}

async function counts(scope: SiteScope, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await scope.db
    .selectFrom('form_submissions')
    .where('site_id', '=', scope.siteId)
    .where('form_id', 'in', [...ids])
    .groupBy('form_id')
    .select((eb) => ['form_id', eb.fn.countAll().as('n')])
    .execute();
  return new Map(rows.map((r) => [r.form_id, Number(r.n)]));
}

function toForm(row: { id: string; name: string; fields: string; created_at: number }, count: number): Form {
  return {
    id: row.id,
    name: row.name,
    fields: parsed<FormField[]>(row.fields, []),
    submissionCount: count,
    createdAt: Number(row.created_at),
  };
}

export async function listForms(scope: SiteScope, request: PageRequest): Promise<Page<Form>> {
  const { size, after } = pageQuery(FORMS, request);
  const rows = await scope.db
    .selectFrom('forms')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(['id', 'name', 'fields', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const n = await counts(
    scope,
    rows.map((r) => r.id),
  );
  return toPage(
    FORMS,
    rows.map((r) => toForm(r, n.get(r.id) ?? 0)),
    size,
    (f) => ({ sort: f.createdAt, id: f.id }),
  );
}

export async function countForms(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('forms')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findForm(scope: SiteScope, id: string): Promise<Form | null> {
  const row = await scope.db
    .selectFrom('forms')
    .select(['id', 'name', 'fields', 'created_at'])
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return toForm(row, (await counts(scope, [id])).get(id) ?? 0);
}

function submissionsOf(scope: SiteScope, formId: string, since: number | undefined) {
  return scope.db
    .selectFrom('form_submissions')
    .where('site_id', '=', scope.siteId)
    .where('form_id', '=', formId)
    .$if(since !== undefined, (qb) => qb.where('submitted_at', '>=', since ?? 0));
}

export async function listSubmissions(
  scope: SiteScope,
  formId: string,
  since: number | undefined,
  request: PageRequest,
): Promise<Page<FormSubmission>> {
  const list = `operator_form_submissions:${formId}`;
  const { size, after } = pageQuery(list, request);
  const rows = await submissionsOf(scope, formId, since)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('submitted_at', '>', after!.sort), eb.and([eb('submitted_at', '=', after!.sort), eb('id', '>', after!.id)])]),
      ),
    )
    .select(['id', 'form_id', 'person_id', 'answers', 'submitted_at'])
    .orderBy('submitted_at', 'asc')
    .orderBy('id', 'asc')
    .limit(size + 1)
    .execute();
  return toPage(
    list,
    rows.map((r) => ({
      id: r.id,
      formId: r.form_id,
      personId: r.person_id,
      answers: parsed<Record<string, string | boolean>>(r.answers, {}),
      submittedAt: Number(r.submitted_at),
    })),
    size,
    (s) => ({ sort: s.submittedAt, id: s.id }),
  );
}

export async function countSubmissions(scope: SiteScope, formId: string, since: number | undefined): Promise<number> {
  const row = await submissionsOf(scope, formId, since)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
