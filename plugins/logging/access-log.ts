// The access log: one line per request (method, path with its query string, status, time, request
// id), projected from the request's event log once the response is written, like the other
// reports of a request. The query string is masked by the kernel's one redaction rule, so a token
// sent as `?access_token=…` never reaches the file (test/plugins/logging/access-log.test.ts).
import { randomBytes } from 'node:crypto'
import { maskQuery, type Kernel, type Redaction, type RequestContext } from 'fw'

/** What an access line holds besides the line's own keys (`level`, `time`, `app`, `request`). */
export interface AccessFields {
  readonly method: string
  /** The path as received, with its query string masked. */
  readonly path: string
  readonly status: number
  /** From the request's arrival to its reply leaving the pipeline, in ms (0.01 ms steps). */
  readonly duration_ms: number
}

/** A hundred parameters at most are masked and written (each costs a redaction check). */
const MAX_QUERY_PARAMS = 100

/**
 * The access line of a request whose reply left the pipeline, from its event log: the method and
 * path of `request.received`, the status and time of the last `response.prepared`; undefined when
 * the log lacks either (a request the kernel did not take).
 */
export function accessFields(ctx: RequestContext, redaction: Redaction): AccessFields | undefined {
  const events = ctx.log.all()
  const received = events.find((e) => e.type === 'request.received')
  const prepared = events.findLast((e) => e.type === 'response.prepared')
  if (received?.type !== 'request.received' || prepared?.type !== 'response.prepared')
    return undefined
  const query =
    ctx.querystring === '' ? '' : `?${maskQuery(ctx.querystring, redaction, MAX_QUERY_PARAMS)}`
  return {
    method: received.data.method,
    path: `${received.data.path}${query}`,
    status: prepared.data.status,
    duration_ms: Math.round((prepared.at - received.at) * 100) / 100,
  }
}

/** Whether the access log is on: config `logging.access_log`, else in development only. */
export function accessLogOn(kernel: Kernel): boolean {
  return kernel.config.logging.access_log ?? kernel.isDevelopment()
}

/** A request id like the debug plugin's: 16 lowercase hex characters. */
function newRequestId(): string {
  return randomBytes(8).toString('hex')
}

/**
 * Taps `annotate` (last) to give each request an id when no plugin did, and writes its access
 * line through `write` after the response, for the requests of one turn of the event loop together.
 */
export function useAccessLog(
  kernel: Kernel,
  write: (ctx: RequestContext, fields: AccessFields) => void,
): void {
  let pending: RequestContext[] = []
  const flush = (): void => {
    const done = pending
    pending = []
    for (const ctx of done) {
      const fields = accessFields(ctx, kernel.redaction)
      if (fields !== undefined) write(ctx, fields)
    }
  }
  kernel.hooks.annotate.tap({ name: 'logging', stage: 2000 }, (_reply, ctx) => {
    ctx.state.requestId ??= newRequestId()
    if (pending.length === 0) setImmediate(flush)
    pending.push(ctx)
  })
  kernel.hooks.shutdown.tapPromise('logging', async () => flush())
}
