// How the admin and account pages write times, money and counts: plainly, the same everywhere.
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return 'never';
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatMoney(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

export function formatCount(n: number): string {
  return new Intl.NumberFormat('en').format(n);
}

export function formatChange(percent: number | null | undefined): string {
  if (percent === null || percent === undefined) return 'no earlier figure';
  if (percent === 0) return 'unchanged';
  return `${percent > 0 ? 'up' : 'down'} ${Math.abs(percent)}% on the previous period`;
}
