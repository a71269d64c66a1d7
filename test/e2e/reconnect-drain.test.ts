// SIGTERM under clients that reconnect: 32 keep-alive connections each sending `GET /_demo/ping`
// back to back and, when an answer says `Connection: close` (or the server closes the socket),
// opening a new connection at once, as every keep-alive agent does. With `--shutdown-delay`, the
// server keeps accepting and answering during the delay; afterwards a new connection is refused
// before anything is written. Every request written on a connection the server accepted must be
// answered.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { performance } from 'node:perf_hooks'
import { RawConnection } from './raw-http.js'
import { servePlayground } from './serve-process.js'

const test = suite('drain under reconnecting clients')
const CLIENTS = 32
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

for (const delay of [0, 1])
  test(`answers every request written on an accepted connection (shutdown_delay ${delay} s)`, async () => {
    const served = await servePlayground({
      NODE_ENV: 'production',
      DATABASE_URL: 'pglite://memory',
      FW_APP_KEY: 'base64:reconnect-key',
      FW_CONFIG: JSON.stringify({ http: { shutdown_delay: delay } }),
    })
    const url = new URL(served.url)
    let stopping = false
    let refused = 0
    const tallies: ReturnType<RawConnection['tally']>[] = []
    let answeredAfterSigterm = 0
    let sigtermAt = Infinity
    let lastAnswer = 0
    const clients = Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        let conn: RawConnection
        try {
          conn = await RawConnection.open(Number(url.port))
        } catch {
          refused++ // the listener is closed: nothing was written
          if (stopping) return
          await sleep(5)
          continue
        }
        for (;;) {
          const res = await conn.get('/_demo/ping')
          if (res === undefined) break
          if (res.at >= sigtermAt) answeredAfterSigterm++
          lastAnswer = Math.max(lastAnswer, res.at)
          if (res.headers.connection === 'close') {
            await conn.closed
            break
          }
        }
        tallies.push(conn.tally())
      }
    })
    await sleep(800)
    sigtermAt = performance.now()
    stopping = true
    const code = await served.stop()
    await Promise.all(clients)
    const unanswered = tallies.reduce((n, t) => n + t.unanswered, 0)
    const sent = tallies.reduce((n, t) => n + t.sent, 0)
    console.log(
      `  reconnecting drain, delay ${delay} s: ${sent} sent on ${tallies.length} connections, ${unanswered} unanswered, ${answeredAfterSigterm} answered after SIGTERM, ${refused} connections refused after the delay; exit ${code}`,
    )
    // Through the delay, new connections were still accepted and answered.
    if (delay > 0)
      assert.ok(
        lastAnswer - sigtermAt > 800,
        `answered until ${Math.round(lastAnswer - sigtermAt)} ms after SIGTERM`,
      )
    assert.is(unanswered, 0, 'requests written on an accepted connection and never answered')
    assert.is(code, 0, served.output())
  })

test.run()
