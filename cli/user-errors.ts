// What a plugin's command needs to turn the user's mistakes into clipanion's usage errors: one
// line `fw: …` on stderr and exit 1, never a stack (test/cli/migrate-commands.test.ts and
// test/plugins/auth/user-commands.test.ts run the commands as child processes and read it).
import type { Writable } from 'node:stream'
import { UsageError } from 'clipanion'
import { formatTable } from './table.js'

/**
 * Runs `fn`; an error whose `code` is one of `codes` is the user's to fix and is thrown again as
 * a UsageError with its message; any other error is thrown as it is.
 */
export async function withUsageErrors<T>(
  codes: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && codes.includes(code))
      throw new UsageError((error as Error).message)
    throw error
  }
}

/**
 * The whole number an option was given, from `min` to `max`; anything else is a UsageError naming
 * the option, the range and what it got.
 */
export function wholeNumberOption(
  option: string,
  raw: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`
    throw new UsageError(`${option} must be a whole number ${range}, got '${raw}'.`)
  }
  return value
}

/** Writes `items` as indented JSON with `--json`, else as a table of `headers`, a row per item. */
export function writeItems<T>(
  out: Writable,
  json: boolean,
  items: readonly T[],
  headers: readonly string[],
  row: (item: T) => readonly string[],
): void {
  out.write(json ? `${JSON.stringify(items, null, 2)}\n` : formatTable(headers, items.map(row)))
}
