import { availableParallelism } from 'node:os'
import { UsageError } from 'clipanion'

/** Parses a whole number option within bounds, or fails naming the option and what it expects. */
export function parseWholeNumber(
  option: string,
  raw: string,
  min: number,
  max: number,
  example: string,
): number {
  const value = raw.trim()
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`
    throw new UsageError(
      `${option} must be a whole number ${range} (e.g. ${option}=${example}), got '${raw}'.`,
    )
  }
  return Number(value)
}

/** `--port`: 0 … 65535 (0 picks a free port). */
export function parsePort(raw: string): number {
  return parseWholeNumber('--port', raw, 0, 65535, '8080')
}

/** `--workers`: a count of at least 1, or `auto` for the machine's available parallelism. */
export function parseWorkers(raw: string): number {
  if (raw.trim().toLowerCase() === 'auto') return availableParallelism()
  return parseWholeNumber('--workers', raw, 1, 1024, '4')
}
