// The `logs` key of the debug payload: the request's last log lines, their context masked.
import type { ProjectionInput } from 'fw/plugins/debug'

/** Log lines kept in the debug payload (the last ones). */
export const MAX_LOGS = 100

/** The request's last {@link MAX_LOGS} `log.written` events. */
export function logsProjection(i: ProjectionInput): unknown {
  return i
    .of('log.written')
    .slice(-MAX_LOGS)
    .map((e) => ({
      at: i.ms(e.at),
      level: e.data.level,
      message: e.data.message,
      context: i.redact(e.data.context),
    }))
}
