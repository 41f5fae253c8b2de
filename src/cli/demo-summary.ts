// The demo as `serve --demo` and `seed --demo` print it (CONTRACT 1, 3): origins, accounts, clients.
import type { VendorIntegration } from '../config/config.js';
import type { DemoSummary } from '../demo/seed-demo.js';

/** Plain text, one block per kind; vendors come from the platform config when the caller has it. */
export function formatDemoSummary(summary: DemoSummary, vendors: readonly VendorIntegration[] = []): string {
  const lines: string[] = ['Sites:'];
  for (const s of summary.sites) {
    lines.push(`  ${s.name} (${s.slug}, variant ${s.variant})  ${s.origin}`);
    lines.push(`    discovery  ${s.discoveryUrl}`);
    lines.push(`    GraphQL    ${s.origin}${s.graphqlPath}`);
  }
  lines.push('', 'Accounts (email / password):');
  for (const a of summary.accounts) lines.push(`  ${a.email} / ${a.password}  ${a.name}: ${a.roles}`);
  lines.push('', `Member applications (scopes: ${summary.clients[0]?.scopes ?? ''}):`);
  for (const c of summary.clients) {
    const auth = c.secret ? `confidential, client_secret_post, secret ${c.secret}` : 'public, none';
    lines.push(`  ${c.clientId} at ${c.site} (${auth})`);
    lines.push(`    redirect URIs  ${c.redirectUris.join(' ')}${c.kind === 'public' ? ' (loopback: any port)' : ''}`);
  }
  if (vendors.length > 0) {
    lines.push('', 'Vendor integrations (operator clients, every site):');
    for (const v of vendors)
      lines.push(`  ${v.client_id} "${v.client_name}" (${v.token_endpoint_auth_method})  ${v.redirect_uris.join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}
