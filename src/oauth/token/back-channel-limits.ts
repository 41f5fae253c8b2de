// Rate limits of the back channel (token, revocation, introspection), counted by who calls:
// - a confidential client, once authenticated, spends its own budget per site, whatever address it calls
//   from: a resource server introspecting every request or a web backend refreshing for all its users
//   from one address is one client with one generous budget;
// - a public client (`none`) proves nothing, so its budget is per client and per address;
// - a failed client authentication spends its address's small failure budget, and once that is used up
//   the address gets 429 before any secret is compared, right or wrong;
// - any other request refused before a client is known (malformed, unsupported grant type) spends the
//   address's unauthenticated budget.
import type { Client } from '../../clients/client.js';
import type { PlatformConfig } from '../../config/config.js';
import type { Site } from '../../sites/site.js';
import type { Budget, Throttle } from '../../throttle/throttle.js';

const MINUTE = 60;

export class BackChannelLimits {
  private readonly confidential: Budget;
  private readonly public: Budget;
  private readonly failures: Budget;
  private readonly unauthenticated: Budget;

  constructor(
    private readonly throttle: Throttle,
    limits: PlatformConfig['limits'],
  ) {
    this.confidential = { name: 'client-confidential', limit: limits.client_rate_per_minute.confidential, windowSeconds: MINUTE };
    this.public = { name: 'client-public', limit: limits.client_rate_per_minute.public, windowSeconds: MINUTE };
    this.unauthenticated = { name: 'back-channel-unauthenticated', limit: limits.oauth_rate_per_minute, windowSeconds: MINUTE };
    this.failures = { name: 'client-auth-failures', limit: limits.failed_client_auth_per_minute, windowSeconds: MINUTE };
  }

  /** Before anything is read: an address that used up either address budget waits out the window. */
  async admitAddress(address: string): Promise<void> {
    await this.throttle.check([this.failures, address], [this.unauthenticated, address]);
  }

  /** After the client is known: spends its budget, or throws RateLimitExceeded. */
  async admitClient(site: Site, client: Client, address: string): Promise<void> {
    if (client.authMethod === 'none') await this.throttle.take(this.public, `${site.id}:${client.clientId}:${address}`);
    else await this.throttle.take(this.confidential, `${site.id}:${client.clientId}`);
  }

  /** A request answered with an error before a client was authenticated. */
  recordRefusal(address: string, failedAuthentication: boolean): Promise<void> {
    return this.throttle.record(failedAuthentication ? this.failures : this.unauthenticated, address);
  }
}
