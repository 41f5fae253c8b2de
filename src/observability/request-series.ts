// The per-request series (answers and their durations, by route template, method and status), counted in
// plain numbers on the request path and written out only when scraped. prom-client's series, even bound
// to their labels, convert, validate and hash the labels on every call: 1.4 µs a request in a loop, about
// 3% of UserInfo's CPU under load, against a few hundredths of a µs here. The text is the Prometheus text
// format (0.0.4) that prom-client writes for a counter and a histogram.

/** Upper bounds of the duration buckets, in seconds. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

const REQUESTS = {
  name: 'schoolgate_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status',
};
const DURATIONS = {
  name: 'schoolgate_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by route template, method and status',
};

class Series {
  count = 0;
  sum = 0;
  /** Observations per bucket, not cumulative; the last counts those above every bound. */
  readonly perBucket = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);

  constructor(
    /** The series' labels as written in the text, without braces: `route="…",method="…",status="…"`. */
    readonly labels: string,
  ) {}

  observe(seconds: number): void {
    this.count += 1;
    this.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] ?? Number.POSITIVE_INFINITY)) bucket += 1;
    this.perBucket[bucket] = (this.perBucket[bucket] ?? 0) + 1;
  }
}

/** A label value in the text format: backslash, double quote and line feed escaped. */
function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return `${value}`;
}

export class RequestSeries {
  private readonly series = new Map<string, Series>();

  /** Records one answered request; `route` is the route template, so the number of series stays bounded. */
  observe(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = new Series(`route="${labelValue(route)}",method="${labelValue(method)}",status="${status}"`);
      this.series.set(key, series);
    }
    series.observe(seconds);
  }

  /** The counter and the histogram in the text format, each with its HELP and TYPE lines. */
  text(): string {
    const requests = [`# HELP ${REQUESTS.name} ${REQUESTS.help}`, `# TYPE ${REQUESTS.name} counter`];
    const durations = [`# HELP ${DURATIONS.name} ${DURATIONS.help}`, `# TYPE ${DURATIONS.name} histogram`];
    for (const series of this.series.values()) {
      requests.push(`${REQUESTS.name}{${series.labels}} ${number(series.count)}`);
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += series.perBucket[i] ?? 0;
        durations.push(`${DURATIONS.name}_bucket{le="${bound}",${series.labels}} ${number(cumulative)}`);
      });
      durations.push(`${DURATIONS.name}_bucket{le="+Inf",${series.labels}} ${number(series.count)}`);
      durations.push(`${DURATIONS.name}_sum{${series.labels}} ${number(series.sum)}`);
      durations.push(`${DURATIONS.name}_count{${series.labels}} ${number(series.count)}`);
    }
    return `${requests.join('\n')}\n\n${durations.join('\n')}\n`;
  }
}
