// A school's settings (CONTRACT 6 school): its name (the site row's, shown on every page), locale, time
// zone (the days of its analytics), currency and contact address. A site without a settings row reads
// the defaults below.
import type { SiteScope } from './scope.js';

export interface SchoolSettings {
  name: string;
  locale: string;
  timeZone: string;
  currency: string;
  contactEmail: string | null;
  updatedAt: number | null;
}

export const DEFAULT_SETTINGS = { locale: 'en', timeZone: 'UTC', currency: 'EUR' } as const;

export async function readSettings(scope: SiteScope): Promise<SchoolSettings | null> {
  const row = await scope.db
    .selectFrom('sites as s')
    .leftJoin('site_settings as t', 't.site_id', 's.id')
    .where('s.id', '=', scope.siteId)
    .select(['s.name', 't.locale', 't.time_zone', 't.currency', 't.contact_email', 't.updated_at'])
    .executeTakeFirst();
  if (!row) return null;
  return {
    name: row.name,
    locale: row.locale ?? DEFAULT_SETTINGS.locale,
    timeZone: row.time_zone ?? DEFAULT_SETTINGS.timeZone,
    currency: row.currency ?? DEFAULT_SETTINGS.currency,
    contactEmail: row.contact_email ?? null,
    updatedAt: row.updated_at ?? null,
  };
}

export type SettingsChanges = Partial<Omit<SchoolSettings, 'updatedAt'>>;

export async function writeSettings(scope: SiteScope, changes: SettingsChanges, now: number): Promise<void> {
  const current = await readSettings(scope);
  if (!current) return;
  if (changes.name !== undefined) await scope.db.updateTable('sites').set({ name: changes.name }).where('id', '=', scope.siteId).execute();
  const next = {
    locale: changes.locale ?? current.locale,
    time_zone: changes.timeZone ?? current.timeZone,
    currency: changes.currency ?? current.currency,
    contact_email: changes.contactEmail !== undefined ? changes.contactEmail : current.contactEmail,
    updated_at: now,
  };
  await scope.db
    .insertInto('site_settings')
    .values({ site_id: scope.siteId, ...next })
    .onConflict((oc) => oc.column('site_id').doUpdateSet(next))
    .execute();
}
