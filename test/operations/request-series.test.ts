// The per-request series are counted outside prom-client (observability/request-series.ts) and must read
// exactly as prom-client's own counter and histogram would for the same requests.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, RequestSeries } from '../../src/observability/request-series.js';

const REQUESTS: Array<[route: string, method: string, status: number, seconds: number]> = [
  ['/api/oauth/userinfo', 'GET', 200, 0.0004],
  ['/api/oauth/userinfo', 'GET', 200, 0.001],
  ['/api/oauth/userinfo', 'GET', 200, 0.0011],
  ['/api/oauth/userinfo', 'GET', 401, 0.02],
  ['/api/oauth/token', 'POST', 200, 3.5],
  ['/api/oauth/token', 'POST', 200, 0.25],
  ['unmatched', 'GET', 404, 0],
  // A label value the text format must escape.
  ['/odd/"quoted"\\path\nline', 'GET', 200, 0.0025],
];

async function promClientText(requests: typeof REQUESTS): Promise<string> {
  const registry = new Registry();
  const labelNames = ['route', 'method', 'status'] as const;
  const counter = new Counter({
    name: 'schoolgate_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames,
    registers: [registry],
  });
  const histogram = new Histogram({
    name: 'schoolgate_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status',
    labelNames,
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  for (const [route, method, status, seconds] of requests) {
    const labels = { route, method, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  return registry.metrics();
}

describe('request series outside prom-client', () => {
  it('writes the same counter and histogram text as prom-client for the same requests, bucket bounds inclusive', async () => {
    const series = new RequestSeries();
    for (const [route, method, status, seconds] of REQUESTS) series.observe(route, method, status, seconds);
    expect(series.text()).toBe(await promClientText(REQUESTS));
  });

  it('writes only the HELP and TYPE lines before the first request, as prom-client does', async () => {
    expect(new RequestSeries().text()).toBe(await promClientText([]));
  });
});
