import { createRedaction, type Redaction } from './redact.js'

/**
 * Where the kernel reports what went wrong (a 500, a broken `annotate` tap, a failed write). The
 * logging plugin replaces the default with one that writes the app's log files; tests pass a
 * silent or collecting one.
 */
export interface Logger {
  error(message: string, context?: Record<string, unknown>): void
  warn(message: string, context?: Record<string, unknown>): void
  info(message: string, context?: Record<string, unknown>): void
}

function line(
  redaction: Redaction,
  level: string,
  message: string,
  context?: Record<string, unknown>,
): string {
  // Context goes through the secret rule (docs/redaction.md), errors with their stack.
  const ctx = redaction.redact(context ?? {}, { stack: true }) as Record<string, unknown>
  return `${JSON.stringify({ time: new Date().toISOString(), level, message, ...ctx })}\n`
}

/**
 * A logger writing one JSON object per line on stderr, its context masked by `redaction` (the
 * kernel's, so keys plugins added count; the built-in list without one).
 */
export function createConsoleLogger(redaction: Redaction = createRedaction()): Logger {
  const write = (level: string) => (message: string, context?: Record<string, unknown>) =>
    void process.stderr.write(line(redaction, level, message, context))
  return { error: write('error'), warn: write('warn'), info: write('info') }
}

/** The default logger: one JSON object per line on stderr, secrets masked. */
export const consoleLogger: Logger = createConsoleLogger()

/** A logger that drops everything. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {} }
