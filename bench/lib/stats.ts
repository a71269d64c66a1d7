// Small numeric helpers shared by the benchmarks: medians over repeated rounds and readable figures.

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** A rate or count with thousands separators and no decimals: `12,345`. */
export function formatInt(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

/** A ratio with two decimals: `0.91`. */
export function formatRatio(value: number): string {
  return value.toFixed(2)
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
