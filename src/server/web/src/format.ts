// Numbers as the header shows them: 24.9K, 1.2M, 3.45G.

function scaled(n: number, units: readonly string[]): string {
  let v = n;
  let mag = 0;
  while (v >= 1000 && mag < units.length - 1) {
    v /= 1000;
    mag++;
  }
  return mag === 0 ? `${n}${units[0]}` : `${v.toFixed(mag >= 3 ? 2 : 1)}${units[mag]}`;
}

export const formatCount = (n: number): string => scaled(n, ['', 'K', 'M', 'B', 'T']);
export const formatFlops = (n: number): string => scaled(n, ['', 'K', 'M', 'G', 'T', 'P', 'E']);
export const formatSeconds = (s: number): string => (s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`);
