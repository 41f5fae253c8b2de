// A site's appearance as its sign-in and consent pages wear it: CSS custom properties the page stylesheet
// reads (so the stylesheet and its CSP hash stay fixed), the logo, and the text colour on buttons chosen
// for contrast. Colours reach this file validated (#rrggbb) and fonts from a fixed list, so nothing a
// caller wrote is ever CSS.
import { createHash } from 'node:crypto';
import { textOn } from '../../kernel/colour-contrast.js';
import type { Appearance, Font } from '../../school/appearance.repository.js';

const FONT_STACKS: Record<Font, string> = {
  system: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  serif: 'Georgia,"Times New Roman",serif',
  rounded: 'ui-rounded,"SF Pro Rounded","Nunito",system-ui,sans-serif',
  mono: 'ui-monospace,"SF Mono",Menlo,Consolas,monospace',
};

export interface PageTheme {
  css: string;
  /** The CSP source allowing `css`. */
  hash: string;
  logoUrl: string | null;
}

export function pageTheme(appearance: Appearance, logoUrl: string | null): PageTheme | undefined {
  const vars: string[] = [];
  if (appearance.primaryColor) vars.push(`--sg-primary:${appearance.primaryColor}`, `--sg-on-primary:${textOn(appearance.primaryColor)}`);
  if (appearance.backgroundColor) vars.push(`--sg-bg:${appearance.backgroundColor}`);
  if (appearance.font !== 'system') vars.push(`--sg-font:${FONT_STACKS[appearance.font]}`);
  if (vars.length === 0 && !logoUrl) return undefined;
  const css = `:root{${vars.join(';')}}`;
  return { css, hash: `'sha256-${createHash('sha256').update(css).digest('base64')}'`, logoUrl };
}
