import { createRequire } from 'node:module'
import type pino from 'pino'
import { serializeError } from './log-context.js'
import { CENSOR } from './secrets.js'

/** What {@link createPino} needs. */
export interface PinoSettings {
  readonly level: pino.LevelWithSilent
  /** The app's name, on every line as `app`. */
  readonly app: string
  /** Every pino `redact` path (`redactPaths()` plus the app's own). */
  readonly redact: readonly string[]
  readonly stream: pino.DestinationStream
}

const errorValue = (value: unknown): unknown =>
  value instanceof Error ? serializeError(value) : value

/**
 * The pino logger behind every line: `{"level":"info","time":"<ISO>","app":…,…context,"msg":…}`,
 * level as its label, no pid or hostname, secrets redacted, errors serialised.
 */
export function createPino(settings: PinoSettings): pino.Logger {
  // Required when the first line is written (the logging plugin's `open`), not when fw loads.
  const create = createRequire(import.meta.url)('pino') as typeof pino
  return create(
    {
      level: settings.level,
      base: { app: settings.app },
      timestamp: create.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...settings.redact], censor: CENSOR },
      serializers: { err: errorValue, error: errorValue },
    },
    settings.stream,
  )
}
