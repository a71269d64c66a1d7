// Time-bounded measurement loops: each runs batches until its time is up, so a run stops by
// itself however fast or slow the machine is, and reports nanoseconds per iteration.
import { median } from './stats.js'

/** A body to time: runs `n` iterations (a sync loop, or awaited requests). */
export type Body = (n: number) => void | Promise<void>

/** Runs `body` in batches for about `ms` milliseconds; returns nanoseconds per iteration. */
export async function nsPerIteration(body: Body, ms: number): Promise<number> {
  let batch = 64
  let iterations = 0
  let elapsed = 0
  const start = performance.now()
  while (elapsed < ms) {
    const t = performance.now()
    await body(batch)
    const took = performance.now() - t
    iterations += batch
    elapsed = performance.now() - start
    // Aim at ~5 ms batches so reading the clock is noise, not part of the figure.
    if (took < 2 && batch < 1 << 24) batch *= 2
  }
  return (elapsed * 1e6) / iterations
}

/**
 * Measures several variants interleaved: `rounds` rounds, each running every variant for
 * `ms` ms (after a short untimed warm-up of that variant, so a variant switch that makes V8
 * re-optimise is not billed to the next figure). Returns each variant's per-round figures and
 * median, in nanoseconds per iteration.
 */
export async function interleave<K extends string>(
  variants: Readonly<Record<K, { setup?: () => void; body: Body }>>,
  options: { rounds: number; ms: number; warmupMs?: number },
): Promise<Record<K, { runs: number[]; median: number }>> {
  const names = Object.keys(variants) as K[]
  const runs = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>
  for (let round = 0; round < options.rounds; round++) {
    // Rotate the order each round so no variant always runs right after the same neighbour.
    const order = names.map((_, i) => names[(i + round) % names.length]!)
    for (const name of order) {
      const variant = variants[name]
      variant.setup?.()
      await nsPerIteration(variant.body, options.warmupMs ?? 20)
      runs[name].push(await nsPerIteration(variant.body, options.ms))
    }
  }
  return Object.fromEntries(
    names.map((n) => [n, { runs: runs[n], median: median(runs[n]) }]),
  ) as Record<K, { runs: number[]; median: number }>
}
