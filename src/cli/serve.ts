// `schoolgate serve [--demo]` (CONTRACT 1, 2, 3): migrate, seed or align the demo, then listen until a signal.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { removeAbandonedUploads } from '../assets/abandoned-uploads.js';
import { removeOrphanedFiles } from '../assets/orphaned-files.js';
import { RepeatingJob } from '../maintenance/repeating-job.js';
import { startMetricsListener } from '../observability/metrics-listener.js';
import { alignDemoOrigins, databaseIsEmpty, demoSummary, seedDemo } from '../demo/seed-demo.js';
import { signingKeyEncryptionKey } from '../keys/signing-keys.js';
import { listSites } from '../sites/sites.repository.js';
import { openStore } from '../storage/connect.js';
import { migrateToLatest } from '../storage/migrate.js';
import {
  type Command,
  CommandFailure,
  ENV_HELP,
  EXIT_OK,
  HELP_OPTION,
  parseOrUsage,
  printHelp,
  requireSecretOpensKeys,
  withConfig,
  writeLine,
} from './command.js';
import { formatDemoSummary } from './demo-summary.js';

const DEMO_SLUGS = ['demo-academy', 'demo-studio'];

/** Resolves on abort of `signal`, or else on the first SIGINT or SIGTERM (a second one kills the process as usual). */
function waitForShutdown(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal) {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function listenerUrl(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
}

/** Sites the start-up summary names; a deployment of thousands points at `schoolgate site list` for the rest. */
const SITES_LISTED = 20;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the server (--demo: seed the demo when the database is empty)',
  help: `Usage: schoolgate serve [--demo]

Migrates the database and serves every site on one listener; a request is routed by its origin.
Stops cleanly on SIGINT or SIGTERM.

Options:
  --demo   demo mode: seeds the demo (CONTRACT 3) when the database is empty, moves the demo
           origins (http://localhost:$PORT, http://127.0.0.1:$PORT) to PORT at every start,
           generates SCHOOLGATE_SECRET into the data folder when unset, adds the Demo Vendor
           integration and lets the CIMD fetcher reach loopback (test use only)

${ENV_HELP}
  PORT                listening port (default 3000)
  HOST                listening address (default 127.0.0.1)
  REDIS_URL           optional: shared rate limits and revocation signals across nodes
  REDIS_PREFIX        a name of this deployment's own in a Redis server it shares with others (the same on all its nodes)
  SCHOOLGATE_PREVIOUS_SECRET  while the secret changes: the one before, still accepted (see \`secret reseal --help\`)
  TRUST_PROXY         comma-separated proxies whose X-Forwarded-* and X-Request-Id headers are trusted
  SHUTDOWN_GRACE_SECONDS  on SIGTERM, time in-flight requests get to finish (default 10)
  METRICS_PORT        serve GET /metrics (Prometheus) on a listener of its own, without a token
  METRICS_HOST        its address (default HOST); keep it off the public network
  METRICS_TOKEN       serve GET /metrics on the main listener to scrapers sending this bearer token (32+ characters)
  LOG_REQUESTS=1      log a line per request (secret query parameters show as REDACTED, headers are never logged)`,
  async run(args, ctx) {
    const { values } = parseOrUsage(() => parseArgs({ args, options: { demo: { type: 'boolean' }, help: HELP_OPTION }, strict: true }));
    if (values.help) return printHelp(serveCommand, ctx);
    const demo = values.demo ?? false;
    const config = withConfig(ctx, demo);
    if (demo && config.port === 0)
      throw new CommandFailure('PORT=0 cannot be used with --demo: the demo origins name the port, so pick one (default 3000)');

    const store = openStore(config.databaseUrl, {
      backgroundCheckpoints: true,
      onCheckpointFault: (error) => writeLine(ctx.io.stderr, `SQLite: ${error.message}; the server checkpoints inside its commits again`),
    });
    try {
      await migrateToLatest(store);
      await requireSecretOpensKeys(store, config);
      let seeded = false;
      if (demo) {
        if (await databaseIsEmpty(store.db)) {
          await seedDemo({ db: store.db, masterKey: signingKeyEncryptionKey(config.secret), clock: ctx.clock, port: config.port });
          seeded = true;
        } else {
          await alignDemoOrigins(store.db, config.port);
        }
      }

      // Loaded here, not at the top, so the other commands start without the HTTP stack.
      const { buildApp } = await import('../app.js');
      const app = await buildApp({ config, store, clock: ctx.clock });
      let address: string;
      try {
        address = await app.listen({ port: config.port, host: config.host });
      } catch (err) {
        await app.close();
        throw new CommandFailure(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
      }

      let metricsListener: Server | undefined;
      if (config.metricsListener) {
        const { host, port } = config.metricsListener;
        try {
          metricsListener = await startMetricsListener(app.services.metrics, host, port);
        } catch (err) {
          await app.close();
          throw new CommandFailure(`cannot listen for metrics on ${host}:${port}: ${(err as Error).message}`);
        }
      }

      const { interval_seconds } = config.platform.janitor;
      const uploads = new RepeatingJob(async () => {
        const now = app.services.clock.now();
        const files = await removeAbandonedUploads(app.services.assets, now);
        if (files > 0) app.log.info({ files }, 'removed partial files of uploads cut off by a crash');
        const orphans = await removeOrphanedFiles(app.services.assets, app.services.db, now);
        if (orphans > 0) app.log.info({ files: orphans }, 'removed finished files that no asset names');
      });
      if (interval_seconds > 0) {
        app.services.janitor.start(interval_seconds * 1000, (err) => app.log.error({ err }, 'janitor run failed'));
        uploads.start(interval_seconds * 1000, (err) => app.log.error({ err }, 'removing abandoned uploads failed'));
      }
      const scheduler = config.platform.scheduler.interval_seconds;
      if (scheduler > 0)
        app.services.postAnnouncer.start(scheduler * 1000, (err) => app.log.error({ err }, 'announcing published posts failed'));

      // Read before printing, so the whole summary is written at once (readers wait for "listening on").
      // One site past those named tells whether there are more; counting them all would read every site's
      // index entry (at 10,000 sites, pages all over the file), which `schoolgate site list` does on request.
      const firstSites = await listSites(store.db, SITES_LISTED + 1);
      const sites = firstSites.slice(0, SITES_LISTED);
      const out = ctx.io.stdout;
      writeLine(out, `schoolgate listening on ${address}${demo ? ' (demo mode)' : ''}`);
      if (metricsListener) writeLine(out, `metrics on ${listenerUrl(metricsListener)}/metrics`);
      if (demo && DEMO_SLUGS.every((slug) => sites.some((s) => s.slug === slug))) {
        writeLine(out, seeded ? 'Seeded the demo into the empty database.' : 'Demo database found: origins follow PORT.');
        writeLine(out);
        out.write(formatDemoSummary(demoSummary(config.port), config.platform.vendors));
      } else {
        if (demo) writeLine(out, 'The database was not empty and holds no demo sites, so no demo was seeded.');
        if (sites.length === 0) writeLine(out, 'No sites yet: create one with `schoolgate site create --help`.');
        for (const s of sites)
          writeLine(
            out,
            `  ${s.name} (${s.slug}, variant ${s.variant})  ${s.origin}  discovery ${s.origin}/.well-known/openid-configuration`,
          );
        if (firstSites.length > sites.length) writeLine(out, '  … and more: `schoolgate site list` lists every site');
      }

      await waitForShutdown(ctx.io.shutdown);
      writeLine(ctx.io.stderr, 'Shutting down: no new connections; finishing the requests in flight...');
      // Fastify's close stops accepting, ends idle keep-alive connections and waits for requests in flight;
      // past the grace period the remaining connections are cut, so a stuck client cannot hold the exit.
      const grace = setTimeout(() => app.server.closeAllConnections(), config.shutdownGraceMs);
      try {
        await app.services.janitor.stop();
        await uploads.stop();
        await app.services.postAnnouncer.stop();
        await app.close();
        metricsListener?.closeAllConnections();
        await new Promise((resolve) => (metricsListener ? metricsListener.close(resolve) : resolve(undefined)));
      } finally {
        clearTimeout(grace);
      }
      writeLine(ctx.io.stderr, 'Stopped.');
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
