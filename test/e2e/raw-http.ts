// A keep-alive HTTP/1.1 client on a raw `net` socket, for suites that must account for every
// request exactly: which request bytes were written on which socket, which got an answer, and
// whether the server closed the socket before a request was sent or after.
import { connect, type Socket } from 'node:net'

/** One response as read off the socket. */
export interface RawResponse {
  readonly status: number
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** `performance.now()` when its last byte was read. */
  readonly at: number
  /** `performance.now()` when its request had been written. */
  readonly sentAt: number
}

/** What became of a connection's requests. */
export interface RawTally {
  /** Requests whose bytes were all written to the socket. */
  readonly sent: number
  readonly answered: number
  /** Written, then the socket closed without an answer: lost. */
  readonly unanswered: number
  /** Not written because the server had already closed the socket (the client may retry). */
  readonly closedBeforeSent: number
}

/** A raw keep-alive connection; requests go one at a time (the next once the previous is answered). */
export class RawConnection {
  readonly responses: RawResponse[] = []
  #socket: Socket
  #buffer = Buffer.alloc(0)
  #sent = 0
  #closedBeforeSent = 0
  #closed = false
  #waiting: { sentAt: number; resolve(res: RawResponse | undefined): void } | undefined
  readonly closed: Promise<void>

  private constructor(socket: Socket) {
    this.#socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#parse()
    })
    this.closed = new Promise((resolve) => {
      const done = (): void => {
        if (this.#closed) return
        this.#closed = true
        socket.destroy()
        const waiting = this.#waiting
        this.#waiting = undefined
        waiting?.resolve(undefined)
        resolve()
      }
      socket.on('end', done)
      socket.on('close', done)
      // ECONNRESET and the like: the socket is closed; what was written and not answered is lost.
      socket.on('error', done)
    })
  }

  /** Opens a connection to `host:port`. */
  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host, noDelay: true }, () => {
        socket.off('error', reject)
        resolve(new RawConnection(socket))
      })
      socket.once('error', reject)
    })
  }

  get isClosed(): boolean {
    return this.#closed
  }

  /** Where this connection's requests ended up. */
  tally(): RawTally {
    const answered = this.responses.length
    return {
      sent: this.#sent,
      answered,
      unanswered: this.#sent - answered,
      closedBeforeSent: this.#closedBeforeSent,
    }
  }

  /**
   * Writes `GET path` and resolves with its response, or with undefined when the socket closed
   * first (before the request was written, or after without answering it; `tally()` tells which).
   */
  get(
    path: string,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<RawResponse | undefined> {
    if (this.#waiting) throw new Error('one request at a time')
    if (this.#closed) {
      this.#closedBeforeSent++
      return Promise.resolve(undefined)
    }
    const lines = [`GET ${path} HTTP/1.1`, 'host: 127.0.0.1', 'accept: application/json']
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
    const bytes = `${lines.join('\r\n')}\r\n\r\n`
    return new Promise((resolve) => {
      const sentAt = performance.now()
      this.#waiting = { sentAt, resolve }
      this.#socket.write(bytes, (error) => {
        // Written means handed to the kernel whole: from here the server may not drop it silently.
        if (error === null || error === undefined) this.#sent++
        else if (this.#closed) this.#closedBeforeSent++
      })
    })
  }

  /** Closes the connection from this side. */
  destroy(): void {
    this.#socket.destroy()
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = this.#buffer.subarray(0, end).toString('latin1').split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0)
      const headers: Record<string, string> = {}
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      let body: string
      let rest: number
      if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
        const parsed = dechunk(this.#buffer, end + 4)
        if (parsed === undefined) return
        ;[body, rest] = parsed
      } else {
        const length = Number(headers['content-length'] ?? 0)
        if (this.#buffer.length < end + 4 + length) return
        body = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8')
        rest = end + 4 + length
      }
      this.#buffer = this.#buffer.subarray(rest)
      const waiting = this.#waiting
      this.#waiting = undefined
      const response: RawResponse = {
        status,
        headers,
        body,
        at: performance.now(),
        sentAt: waiting?.sentAt ?? -1,
      }
      this.responses.push(response)
      waiting?.resolve(response)
    }
  }
}

/** A chunked body starting at `from`: its text and where it ends, or undefined when incomplete. */
function dechunk(buffer: Buffer, from: number): [string, number] | undefined {
  const parts: Buffer[] = []
  let at = from
  for (;;) {
    const eol = buffer.indexOf('\r\n', at)
    if (eol < 0) return undefined
    const size = parseInt(buffer.subarray(at, eol).toString('latin1'), 16)
    if (buffer.length < eol + 2 + size + 2) return undefined
    if (size === 0) return [Buffer.concat(parts).toString('utf8'), eol + 4]
    parts.push(buffer.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}
