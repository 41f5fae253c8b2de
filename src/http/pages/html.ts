// Escaping for every value placed in a page: all text is data, never markup.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** A tagged template whose interpolations are escaped unless wrapped in `raw()`. */
export class Raw {
  constructor(readonly html: string) {}
}
export function raw(html: string): Raw {
  return new Raw(html);
}
export function html(strings: TemplateStringsArray, ...values: Array<string | number | Raw | Raw[] | undefined | null>): Raw {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    if (Array.isArray(value)) out += value.map((v) => v.html).join('');
    else if (value instanceof Raw) out += value.html;
    else if (value !== undefined && value !== null) out += escapeHtml(String(value));
    out += strings[i + 1] ?? '';
  });
  return new Raw(out);
}
