// The frame of the admin and account pages (CONTRACT 7): the sign-in pages' look (the site's name, logo,
// colours and font through the same theme variables), wider, with a navigation bar. No JavaScript; one
// inline stylesheet allowed by its hash; tables scroll sideways on a phone instead of breaking the page.
import { createHash } from 'node:crypto';
import { html, type Raw } from '../html.js';
import { pageStart, STYLE } from '../layout.js';
import type { PageTheme } from '../theme.js';

const ADMIN_STYLE = `${STYLE}
main.wide{max-width:64rem}
nav.admin{display:flex;flex-wrap:wrap;gap:.25rem .75rem;margin:0 0 1.25rem;padding:0 0 .75rem;border-bottom:1px solid #d0d7de}
nav.admin a{color:#0550ae;padding:.35rem .1rem;text-decoration:underline;text-underline-offset:3px}
nav.admin a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
a:focus{outline:3px solid var(--sg-primary,#0969da);outline-offset:2px}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.scroll{overflow-x:auto;margin:.5rem 0 1rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;vertical-align:top;padding:.45rem .5rem;border-bottom:1px solid #d0d7de}
th{background:#f6f8fa}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
input[type=text],input[type=url],textarea,select{width:100%;padding:.55rem .65rem;font:inherit;border:1px solid #8c959f;border-radius:8px}
textarea{min-height:5rem}
input:focus,textarea:focus,select:focus{outline:3px solid var(--sg-primary,#0969da);outline-offset:2px}
fieldset{border:1px solid #d0d7de;border-radius:8px;margin:.75rem 0;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.35rem 0}
label.check input{width:1.2rem;height:1.2rem;margin-top:.15rem}
form.inline{display:inline-block;margin:.15rem .35rem .15rem 0}
form.inline button{min-height:40px;padding:.45rem .8rem;font-size:.95rem}
.notice{background:#dafbe1;border:1px solid #4ac26b;padding:.6rem .75rem;border-radius:8px;margin:.75rem 0}
.secret{background:#fff8c5;border:1px solid #d4a72c;padding:.75rem;border-radius:8px;margin:.75rem 0}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.75rem;margin:.75rem 0}
.figure{border:1px solid #d0d7de;border-radius:8px;padding:.6rem .75rem}
.figure .value{font-size:1.35rem;font-weight:700}
svg.chart{width:100%;height:auto;max-height:16rem}
.pager{display:flex;gap:1rem;margin:.75rem 0}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0}
.badge{display:inline-block;border:1px solid #8c959f;border-radius:999px;padding:0 .5rem;font-size:.85rem}
`;

export const ADMIN_STYLE_HASH = `'sha256-${createHash('sha256').update(ADMIN_STYLE).digest('base64')}'`;

export interface NavLink {
  href: string;
  label: string;
}

export interface AdminFrame {
  title: string;
  siteName: string;
  /** The path of this page, marked as current in the navigation. */
  current: string;
  nav: readonly NavLink[];
  theme?: PageTheme;
  personName: string;
  signOutToken: string;
}

export function adminLayout(frame: AdminFrame, body: Raw): string {
  const links = frame.nav.map((l) =>
    l.href === frame.current ? html`<a href="${l.href}" aria-current="page">${l.label}</a>` : html`<a href="${l.href}">${l.label}</a>`,
  );
  return html`${pageStart(frame.title, frame.siteName, ADMIN_STYLE, frame.theme, 'wide')}
<p class="site">${frame.siteName} · signed in as ${frame.personName}</p>
<nav class="admin" aria-label="Sections">${links}</nav>
<h1>${frame.title}</h1>
${body}
<form method="post" action="/oauth/sign-out" class="inline"><input type="hidden" name="csrf_token" value="${frame.signOutToken}"><button type="submit" class="secondary">Sign out</button></form>
</main>
</body>
</html>`.html;
}
