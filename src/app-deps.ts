// What the application is built from. main.ts assembles it; tests assemble it per dialect.
import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config/config.js';
import type { Clock } from './kernel/clock.js';
import type { Store } from './storage/connect.js';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  /** Fastify logger settings; tests pass false. */
  logger?: FastifyServerOptions['logger'];
}
