// Rate limits of the back channel (token, revocation, introspection), counted by who calls:
// - a confidential client, once authenticated, spends its own budget per site, whatever address it calls
//   from: a resource server introspecting every request or a web backend refreshing for all its users
//   from one address is one client with one generous budget;
// - a public client (`none`) proves nothing, so its budget is per client and per address;
// - a failed client authentication spends its address's small failure budget, and once that is used up
//   the address gets 429 whatever it sends, right secret or wrong;
// - any other request refused before a client is known (malformed, unsupported grant type) spends the
//   address's unauthenticated budget.
// An address that used up either address budget gets 429 for anything it sends until the window ends. That
// is settled in the same step that spends the client's budget or records the refusal (one Redis round trip
// per request, where checking first cost a second one), so a secret is compared before the address is
// looked at; the answer is 429 either way, whether the secret was right or not.
import type { Client } from '../../clients/client.js';
import type { PlatformConfig } from '../../config/config.js';
import type { Site } from '../../sites/site.js';
import type { Budget, Charge, Throttle } from '../../throttle/throttle.js';

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

  private addressBudgets(address: string): Charge[] {
    return [
      [this.failures, address],
      [this.unauthenticated, address],
    ];
  }

  /**
   * Checks the address budgets alone, for a caller about to do work on behalf of a client it has not
   * proved yet (fetching a Client ID Metadata Document): an address that used up either waits out the window.
   */
  async admitAddress(address: string): Promise<void> {
    await this.throttle.check(...this.addressBudgets(address));
  }

  /** After the client is authenticated: the address budgets, then the client's, or RateLimitExceeded. */
  async admitClient(site: Site, client: Client, address: string): Promise<void> {
    const guards = this.addressBudgets(address);
    if (client.authMethod === 'none') await this.throttle.takeUnless(guards, this.public, `${site.id}:${client.clientId}:${address}`);
    else await this.throttle.takeUnless(guards, this.confidential, `${site.id}:${client.clientId}`);
  }

  /**
   * A request answered with an error before a client was authenticated: recorded, or, when the address had
   * already used up a budget, RateLimitExceeded in place of that error.
   */
  recordRefusal(address: string, failedAuthentication: boolean): Promise<void> {
    return this.throttle.recordUnless(this.addressBudgets(address), failedAuthentication ? this.failures : this.unauthenticated, address);
  }
}
