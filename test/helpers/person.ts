// A person at a browser, over plain HTTP: keeps cookies per origin, reads forms out of the pages, signs
// in and answers the consent page. It drives the real pages, so it fails when they break CONTRACT 4.
export interface FormField {
  name: string;
  value: string;
}

export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1] as string] = decodeEntities(m[2] as string);
  }
  return fields;
}

/** The hidden fields of the form posting to `action` (pages hold several forms with their own tokens). */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  return hiddenFields(html.slice(start, html.indexOf('</form>', start)));
}

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export interface Step {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

export class Person {
  private jar = new Map<string, Map<string, string>>();

  constructor(
    readonly email: string,
    readonly password: string,
  ) {}

  private cookieHeader(url: URL): string {
    const cookies = this.jar.get(url.hostname);
    return cookies ? [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }

  private remember(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq).trim();
      const value = (pair ?? '').slice(eq + 1).trim();
      const cookies = this.jar.get(url.hostname) ?? new Map<string, string>();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
      this.jar.set(url.hostname, cookies);
    }
  }

  async request(url: string, init: { method?: string; form?: Record<string, string | string[]> } = {}): Promise<Step> {
    const target = new URL(url);
    const headers: Record<string, string> = { cookie: this.cookieHeader(target) };
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(init.form)) for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
      body = params.toString();
    }
    const res = await fetch(target, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.remember(target, res.headers);
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, target).href : null, html: await res.text(), headers: res.headers };
  }

  /** From an authorization URL to the redirect back to the client: signs in and allows as needed. */
  async authorize(authorizationUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
    const origin = new URL(authorizationUrl).origin;
    let step = await this.request(authorizationUrl);
    for (let i = 0; i < 6; i++) {
      if (step.status === 303 || step.status === 302) {
        const next = new URL(step.location as string);
        if (next.origin !== origin || !next.pathname.startsWith('/oauth/')) return next;
        step = await this.request(next.href);
        continue;
      }
      if (step.status !== 200) throw new Error(`unexpected ${step.status}: ${step.html.slice(0, 400)}`);
      const fields = hiddenFields(step.html);
      if (step.html.includes('name="password"')) {
        step = await this.request(`${origin}/oauth/sign-in`, { form: { ...fields, email: this.email, password: this.password } });
      } else if (step.html.includes('name="decision"')) {
        step = await this.request(`${origin}/oauth/authorize/decision`, { form: { ...fields, decision } });
      } else {
        throw new Error(`unexpected page: ${step.html.slice(0, 400)}`);
      }
    }
    throw new Error('authorization did not finish');
  }
}

export const DEMO = {
  owner: { email: 'owner@demo.test', password: 'owner-pass-123' },
  student: { email: 'student@demo.test', password: 'student-pass-123' },
  lecturer: { email: 'lecturer@demo.test', password: 'lecturer-pass-123' },
  visitor: { email: 'visitor@demo.test', password: 'visitor-pass-123' },
} as const;

export function person(who: keyof typeof DEMO): Person {
  return new Person(DEMO[who].email, DEMO[who].password);
}
