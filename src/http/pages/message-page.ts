// Error and notice pages (CONTRACT 4: errors that must not be redirected are shown with a 400).
import { html } from './html.js';
import { layout } from './layout.js';

export function messagePage(siteName: string, title: string, message: string, code?: string): string {
  return layout(
    title,
    siteName,
    html`<p class="error" role="alert">${message}</p>${code ? html`<p class="muted">Error code: <code>${code}</code></p>` : html``}`,
  );
}

/** A page that reports success (signed in, signed out): plain text, not styled or announced as an error. */
export function noticePage(siteName: string, title: string, message: string): string {
  return layout(title, siteName, html`<p role="status">${message}</p>`);
}
