import type { Logger, Redaction, RequestContext } from 'fw'
import type pino from 'pino'
import { toLogContext } from './log-context.js'

/** The levels fw's `Logger` writes at. */
export type LineLevel = 'error' | 'warn' | 'info'

/**
 * Writes one line: to the file through pino, with `request` = the request's id when it has one
 * (`ctx.state.requestId`, read when the line is written, so an id issued later still counts) and
 * the request's `ctx.state.logFields` (a trace id…), and
 * as a `log.written` event in the request's log (unless `record` is false: the access line, which
 * the log itself made). Lines below the configured level are neither.
 */
export function writeLine(
  base: pino.Logger,
  level: LineLevel,
  message: string,
  context: Record<string, unknown> | undefined,
  ctx: RequestContext | undefined,
  redaction: Redaction,
  record = true,
): void {
  if (!base.isLevelEnabled(level)) return
  const clean = toLogContext(context, redaction)
  const id = ctx?.state.requestId
  const fields = ctx?.state.logFields
  const line = id === undefined ? clean : { ...clean, request: id }
  base[level](fields === undefined ? line : { ...line, ...fields }, message)
  if (record) ctx?.log.record('log.written', { level, message, context: clean })
}

/**
 * A `Logger` (writing through `base()`, made on the first line) whose lines belong to the request `requestOf()` answers when each line is written: a
 * fixed request for `logger(ctx)`, the current one (`currentContext()`) for the app's logger.
 * Contexts are masked by `redaction` (the kernel's).
 */
export function createLineLogger(
  base: () => pino.Logger,
  requestOf: () => RequestContext | undefined,
  redaction: Redaction,
): Logger {
  const write = (level: LineLevel) => (message: string, context?: Record<string, unknown>) =>
    writeLine(base(), level, message, context, requestOf(), redaction)
  return { error: write('error'), warn: write('warn'), info: write('info') }
}
