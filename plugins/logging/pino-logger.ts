import { createRequire } from 'node:module'
import { requireOptional } from 'fw'
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
 * pino, an optional peer dependency of fw (an app without the logging plugin neither installs nor
 * loads it), required when the first line is written; FW_ERR_PACKAGE_MISSING naming it when absent.
 */
export function loadPino(): typeof pino {
  return requireOptional<typeof pino>('pino', 'the logging plugin')
}

/**
 * Refuses a missing pino when the plugin is set up (FW_ERR_PACKAGE_MISSING, with the install
 * line), not at the first line logged; finds it without loading it. Guarded by
 * test/kernel/optional-package.test.ts.
 */
export function assertPinoInstalled(): void {
  try {
    createRequire(import.meta.url).resolve('pino')
  } catch {
    loadPino()
  }
}

/**
 * The pino logger behind every line: `{"level":"info","time":"<ISO>","app":…,…context,"msg":…}`,
 * level as its label, no pid or hostname, secrets redacted, errors serialised.
 */
export function createPino(settings: PinoSettings): pino.Logger {
  // Required when the first line is written (the logging plugin's `open`), not when fw loads.
  const create = loadPino()
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
