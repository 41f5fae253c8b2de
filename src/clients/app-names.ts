// What the admin and account pages call an app: a member application's name, a vendor's client_name,
// or for a Client ID Metadata Document client the host that published it (fetching the document to
// show a page would let any client make us fetch; the host is what the consent page vouched for).
import type { Kysely } from 'kysely';
import type { VendorIntegration } from '../config/config.js';
import type { Database } from '../storage/schema.js';
import { listMemberApps } from './member-apps.repository.js';

export type AppKind = 'vendor' | 'cimd' | 'member-app';

export interface AppIdentity {
  name: string;
  kind: AppKind;
}

export async function appNamer(db: Kysely<Database>, siteId: string, vendors: readonly VendorIntegration[]) {
  const apps = new Map((await listMemberApps(db, siteId)).map((a) => [a.client_id, a.name]));
  const vendorNames = new Map(vendors.map((v) => [v.client_id, v.client_name]));
  return (clientId: string): AppIdentity => {
    const vendor = vendorNames.get(clientId);
    if (vendor !== undefined) return { name: vendor, kind: 'vendor' };
    if (clientId.startsWith('https://')) {
      let host = clientId;
      try {
        host = new URL(clientId).host;
      } catch {}
      return { name: host, kind: 'cimd' };
    }
    return { name: apps.get(clientId) ?? `Deleted application ${clientId}`, kind: 'member-app' };
  };
}
