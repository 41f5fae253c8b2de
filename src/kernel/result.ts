// Small helpers shared by every layer.

/** Splits a space-delimited OAuth parameter (scope) into unique, non-empty items (RFC 6749 3.3). */
export function splitSpaceList(value: string | undefined | null): string[] {
  if (!value) return [];
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}
