// The logging plugin: pino writing one JSON object per line to the app's log file, with the request
// id, secrets masked, each line also a `log.written` event in the request's log.
import { currentContext, definePlugin, type Logger, type RequestContext } from 'fw'
import type pino from 'pino'
import { accessLogOn, useAccessLog } from './access-log.js'
import { loggingErrors } from './errors.js'
import { logsProjection } from './debug-projection.js'
import { createLineLogger, writeLine } from './line-writer.js'
import { defaultLogFile, givenStream, logFilePath, openLogFile, type LogSink } from './log-file.js'
import { assertPinoInstalled, createPino } from './pino-logger.js'
import { redactPaths } from './secrets.js'
import './events.js'

/** Options of the logging plugin. */
export interface LoggingOptions {
  /** The log file; relative to the app root. Default: `var/log/<app name>.log`. */
  file?: string
  /** The lowest level written. Default: `'info'`. */
  level?: pino.LevelWithSilent
  /** Write lines here instead of a file (tests, stdout). The plugin never closes it. */
  destination?: pino.DestinationStream
  /**
   * pino `redact` paths to mask besides those built from the kernel's key list (see the README and
   * docs/redaction.md). To mask a key everywhere (logs, `_debug`, health), prefer
   * `kernel.redaction.addKeys(...)`.
   */
  redact?: string[]
  /**
   * Turn the kernel's request scope on, so that lines the kernel writes during a request (`request
   * failed`) carry its id and land in its log. It costs every request a little. Default: `true`.
   */
  requestScope?: boolean
}

/** What other plugins get from `kernel.plugin('logging')`. */
export interface LoggingApi {
  /**
   * A logger for a request: each line carries `request` (the id, when the request has one) and is
   * recorded as a `log.written` event. Without `ctx`, lines belong to the current request if any.
   *
   * @example
   * kernel.plugin('logging').logger(ctx).info('order placed', { order: order.id })
   */
  logger(ctx?: RequestContext): Logger
  /** The log file, or `undefined` when lines go to the `destination` stream. */
  readonly file: string | undefined
}

declare module 'fw' {
  interface PluginApis {
    logging: LoggingApi
  }
  interface ContextState {
    /** The request's id, once a plugin issued one (16 lowercase hex characters). */
    requestId?: string
    /**
     * More fields for every log line of the request, set by the plugins that know them (the
     * telemetry plugin's `trace_id` and `span_id`, say).
     */
    logFields?: Readonly<Record<string, string>>
  }
  interface FwConfig {
    logging: {
      /**
       * One `info` line per request (method, path, status, time, request id). Unset: on in
       * development only. Env `FW_ACCESS_LOG`.
       */
      access_log: boolean | undefined
    }
  }
}

/**
 * Writes the app's log: one JSON object per line in `var/log/<app name>.log`, and becomes the
 * logger the kernel reports through.
 *
 * @example
 * kernel.register(logging, { level: 'warn' })
 */
const logging = definePlugin({
  name: 'logging',
  // debug: the `_debug` payload's `logs` key, and the file the dev panel reads.
  optionalDependsOn: ['debug'],
  config: {
    defaults: { logging: { access_log: undefined } },
    schema: { 'logging.access_log': 'boolean?' },
    env: { 'logging.access_log': 'FW_ACCESS_LOG' },
  },
  setup(kernel, options: LoggingOptions = {}): LoggingApi {
    assertPinoInstalled()
    const previous = kernel.logger
    const file = options.destination
      ? undefined
      : logFilePath(
          kernel.root,
          options.file ?? defaultLogFile(kernel.root, kernel.config.app.name),
        )
    // pino (~30 CommonJS files) loads and the file opens with the first line: a command that logs
    // nothing (`fw route:list`) loads neither.
    let sink: LogSink | undefined
    let base: pino.Logger | undefined
    const open = (): pino.Logger => {
      if (base !== undefined) return base
      sink =
        file === undefined
          ? givenStream(options.destination!)
          : openLogFile(file, (error) =>
              previous.error(loggingErrors.message('FW_ERR_LOGGING_FILE_UNWRITABLE', { file }), {
                error: loggingErrors.error(
                  'FW_ERR_LOGGING_FILE_UNWRITABLE',
                  { file },
                  { cause: error },
                ),
                file,
              }),
            )
      base = createPino({
        level: options.level ?? 'info',
        app: kernel.config.app.name,
        redact: [...redactPaths(kernel.redaction.addedKeys), ...(options.redact ?? [])],
        stream: sink.stream,
      })
      return base
    }
    const appLogger = createLineLogger(open, currentContext, kernel.redaction)

    kernel.useLogger(appLogger)
    if (options.requestScope !== false) kernel.useRequestScope()
    if (accessLogOn(kernel)) {
      useAccessLog(kernel, (ctx, line) => {
        const message = `${line.method} ${line.path} ${line.status} ${line.duration_ms} ms`
        writeLine(open(), 'info', message, { ...line }, ctx, kernel.redaction, false)
      })
    }
    // Last, so that other shutdown taps can still log; the kernel's logger is handed back first.
    kernel.hooks.shutdown.tapPromise({ name: 'logging', stage: 1000 }, async () => {
      kernel.useLogger(previous)
      await sink?.close()
    })

    if (kernel.hasPlugin('debug')) {
      const debug = kernel.plugin('debug')
      debug.project('logs', logsProjection)
      debug.readLogFile(() => file)
    }

    return {
      logger: (ctx) =>
        ctx === undefined ? appLogger : createLineLogger(open, () => ctx, kernel.redaction),
      file,
    }
  },
})

export default logging
export { loggingErrors } from './errors.js'
export { logsProjection, MAX_LOGS } from './debug-projection.js'
