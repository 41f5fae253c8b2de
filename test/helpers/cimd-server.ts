// An HTTPS server on 127.0.0.1 that publishes Client ID Metadata Documents (SPEC 4.2) for tests. Each
// path serves what the test configured for it; every request is counted per path. Its certificate is
// the test CA's (trusted through NODE_EXTRA_CA_CERTS), issued for `localhost`.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { testTls } from './tls.js';

export interface CimdResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless it is already a string. */
  body: unknown;
}

export interface CimdServer {
  port: number;
  /** `https://localhost:<port>`: the host the demo allowlists. */
  origin: string;
  /** The URL of a path on this server, which a document at that path uses as its client_id. */
  url(path: string): string;
  /** Serves a JSON document (200, application/json) at `path`. */
  serveDocument(path: string, document: Record<string, unknown>): string;
  /** Serves any answer at `path`. */
  serve(path: string, response: CimdResponse): string;
  /** How many requests reached `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startCimdServer(): Promise<CimdServer> {
  const { key, cert } = testTls();
  const routes = new Map<string, CimdResponse>();
  const counts = new Map<string, number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const body = typeof route.body === 'string' ? route.body : JSON.stringify(route.body);
    res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `https://localhost:${port}`;
  const url = (path: string) => `${origin}${path}`;
  return {
    port,
    origin,
    url,
    serveDocument(path, document) {
      routes.set(path, { body: document });
      return url(path);
    },
    serve(path, response) {
      routes.set(path, response);
      return url(path);
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
