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

function serialiseError(value: unknown): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      stack: value.stack,
      code: (value as { code?: unknown }).code,
    }
  }
  return value
}

function line(level: string, message: string, context?: Record<string, unknown>): string {
  const ctx: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(context ?? {})) ctx[k] = serialiseError(v)
  return `${JSON.stringify({ time: new Date().toISOString(), level, message, ...ctx })}\n`
}

/** The default logger: one JSON object per line on stderr. */
export const consoleLogger: Logger = {
  error: (message, context) => void process.stderr.write(line('error', message, context)),
  warn: (message, context) => void process.stderr.write(line('warn', message, context)),
  info: (message, context) => void process.stderr.write(line('info', message, context)),
}

/** A logger that drops everything. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {} }
