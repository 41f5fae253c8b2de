// The page frame shared by sign-in, consent and error pages: no JavaScript, one inline stylesheet
// allowed by its hash in the CSP, readable on a phone, usable from the keyboard (INTEROP "Browsers").
import { createHash } from 'node:crypto';
import { html, type Raw, raw } from './html.js';
import type { PageTheme } from './theme.js';

export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 var(--sg-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);color:#1b1f24;background:var(--sg-bg,#f4f5f7)}
main{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .25rem}
p.site{margin:0 0 1.25rem;color:#57606a}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password]{width:100%;padding:.65rem .75rem;font-size:1rem;border:1px solid #8c959f;border-radius:8px}
input:focus,button:focus{outline:3px solid var(--sg-primary,#0969da);outline-offset:2px}
button{font-size:1rem;padding:.7rem 1.1rem;border-radius:8px;border:1px solid var(--sg-primary,#1f6feb);background:var(--sg-primary,#1f6feb);color:var(--sg-on-primary,#fff);cursor:pointer;min-height:44px}
img.logo{display:block;max-height:3rem;max-width:12rem;margin:0 0 1rem}
button.secondary{background:#fff;color:#1b1f24;border-color:#8c959f}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}
.actions button{flex:1 1 8rem}
.error{background:#ffebe9;border:1px solid #ff8182;padding:.6rem .75rem;border-radius:8px;margin:.75rem 0}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.3rem 0}
code{font-size:.9em;background:#f0f2f4;padding:.05rem .3rem;border-radius:4px;word-break:break-all}
.muted{color:#57606a;font-size:.9rem}
@media (max-width:30rem){main{margin:0;border-radius:0;min-height:100vh}}
`;

export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The document's start up to `<main>`: every page's head, its stylesheet, the theme and the logo. */
export function pageStart(title: string, siteName: string, style: string, theme: PageTheme | undefined, mainClass = ''): Raw {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ${siteName}</title>
<style>${raw(style)}</style>
${theme ? html`<style>${raw(theme.css)}</style>` : raw('')}
</head>
<body>
<main${raw(mainClass ? ` class="${mainClass}"` : '')}>
${theme?.logoUrl ? html`<img class="logo" src="${theme.logoUrl}" alt="${siteName}">` : raw('')}`;
}

/** A page; with a theme, the site's colours, font and logo (sendPage must then allow the theme's hash). */
export function layout(title: string, siteName: string, body: Raw, theme?: PageTheme): string {
  return html`${pageStart(title, siteName, STYLE, theme)}
<h1>${title}</h1>
<p class="site">${siteName}</p>
${body}
</main>
</body>
</html>`.html;
}
