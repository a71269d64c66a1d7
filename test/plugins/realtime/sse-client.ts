// A server-sent events client over node:http, as an EventSource reads the wire: what the realtime
// suites, the e2e suites and bench/sse.ts share. One socket per stream (no agent).
import http from 'node:http'

/** One event as a client sees it. */
export interface SseEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
}

/** An open stream. */
export interface SseStream {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** Events so far, in order. */
  readonly events: SseEvent[]
  /** Comment lines so far (heartbeats are comments). */
  readonly comments: string[]
  /** The `retry:` the server sent, when it sent one. */
  readonly retry: number | undefined
  /** The id of the last event that carried one (what an EventSource resends on reconnect). */
  readonly lastEventId: string | undefined
  /** Resolves once `count` events arrived in all; rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<SseEvent[]>
  /** Resolves with how the stream ended: `end` (the server ended it) or `error` (cut). */
  readonly ended: Promise<'end' | 'error'>
  /** Closes the stream from the client's side. */
  close(): void
}

/** Opens `url` as an event stream; resolves once the response's head arrived. */
export function openEvents(
  url: string,
  options: { lastEventId?: string; headers?: http.OutgoingHttpHeaders } = {},
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { accept: 'text/event-stream', ...options.headers }
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
    const req = http.get(url, { headers, agent: false }, (res) => {
      const events: SseEvent[] = []
      const comments: string[] = []
      const waiters = new Set<() => void>()
      let buffer = ''
      let retry: number | undefined
      let lastEventId: string | undefined
      const ended = new Promise<'end' | 'error'>((done) => {
        res.on('end', () => done('end'))
        res.on('error', () => done('error'))
        res.on('aborted', () => done('error'))
      })
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let at: number
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at)
          buffer = buffer.slice(at + 2)
          let id: string | undefined
          let event = 'message'
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else if (line.startsWith('id: ')) id = line.slice(4)
            else if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
            else if (line.startsWith('retry: ')) retry = Number(line.slice(7))
          }
          if (data.length === 0) continue
          if (id !== undefined) lastEventId = id
          events.push({ id, event, data: data.join('\n') })
        }
        for (const wake of waiters) wake()
      })
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        get retry() {
          return retry
        },
        get lastEventId() {
          return lastEventId
        },
        ended,
        waitFor(count, ms = 5000) {
          return new Promise((done, fail) => {
            const check = (): void => {
              if (events.length < count) return
              clearTimeout(timer)
              waiters.delete(check)
              done(events)
            }
            const timer = setTimeout(() => {
              waiters.delete(check)
              fail(new Error(`${events.length} of ${count} events in ${ms} ms from ${url}`))
            }, ms)
            waiters.add(check)
            check()
          })
        },
        close: () => req.destroy(),
      })
    })
    req.on('error', reject)
  })
}
