import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { performance } from 'node:perf_hooks'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { RawConnection, type RawResponse } from './raw-http.js'
import { servePlayground, type ServedApp } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// SIGTERM under load: `fw serve` (production) with 64 keep-alive connections each sending
// `/_demo/queries?n=5` back to back. Every request whose bytes reached the socket is answered;
// the drain ends every connection with a `Connection: close` answer, and the clients stop there.
// PGlite in memory, or a fresh PostgreSQL database when DATABASE_URL is postgresql://….
const test = suite<{ db?: TestDatabase; app?: ServedApp }>('shutdown')
const CONNECTIONS = 64
const PATH = '/_demo/queries?n=5'

test.after(async (context) => {
  if (context.app && context.app.child.exitCode === null && context.app.child.signalCode === null)
    context.app.child.kill('SIGKILL')
  await context.db?.drop()
})

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)
    }),
  ])
}

test('loses no request on SIGTERM under 64 busy keep-alive connections, and exits 0', async (context) => {
  const db = onPostgres ? (context.db = await createTestDatabase()) : undefined
  const app = (context.app = await servePlayground({
    NODE_ENV: 'production',
    DATABASE_URL: db?.url ?? 'pglite://memory',
    FW_APP_KEY: 'base64:e2e-shutdown-key',
  }))
  const port = Number(new URL(app.url).port)
  const connections = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => RawConnection.open(port)),
  )
  let sigtermAt = Infinity
  /** When a `Connection: close` answer was first read: the server is draining for sure by then. */
  let drainingSeen = Infinity
  const clients = connections.map(async (conn) => {
    for (;;) {
      const res = await conn.get(PATH)
      if (res === undefined) return // closed by the server: before the request, or without an answer
      if (res.headers.connection === 'close') {
        drainingSeen = Math.min(drainingSeen, res.at)
        await conn.closed
        return
      }
    }
  })
  // Every connection answered once before SIGTERM. Under this load on PGlite a connection's first
  // answer can take 5-14 s while the others are answered again and again: libuv (since 1.45, Node
  // 20) accepts one connection per event-loop turn, and on PGlite a turn runs the statements of
  // every request it read in the process itself, ~150 ms with ~45 connections busy, so the last
  // of 64 connections is accepted some 20 turns late (strace: one accept4 after each epoll_wait;
  // the others wait in the kernel's accept queue). On PostgreSQL a turn is short. A request that
  // waits so long is not what this test is about, and one still unread when the drain's five
  // graces are up is lost by design (kernel/http/drain.ts).
  const loadStart = performance.now()
  while (connections.some((c) => c.responses.length === 0)) {
    if (performance.now() - loadStart > 30_000) break
    await sleep(50)
  }
  const everyConnection = Math.round(performance.now() - loadStart)
  await sleep(500)
  const before = connections.reduce((n, c) => n + c.responses.length, 0)
  sigtermAt = performance.now()
  const exited = app.stop()
  await within(Promise.all(clients), 20_000, 'the server closing every connection')
  const code = await within(exited, 20_000, 'the server exiting')
  const exitAfter = performance.now() - sigtermAt

  const all: RawResponse[] = connections.flatMap((c) => c.responses)
  const tallies = connections.map((c) => c.tally())
  const sum = (key: keyof (typeof tallies)[number]): number =>
    tallies.reduce((n, t) => n + t[key], 0)
  const afterSigterm = all.filter((r) => r.at >= sigtermAt)
  const keepAliveAfter = afterSigterm.filter((r) => r.headers.connection !== 'close').length
  const summary = `${sum('sent')} sent, ${sum('answered')} answered (${before} before SIGTERM, ${afterSigterm.length} after, ${keepAliveAfter} of them keep-alive), ${sum('unanswered')} unanswered, ${sum('closedBeforeSent')} closed before sent; every connection answered once ${everyConnection} ms into the load; exit ${code} ${Math.round(exitAfter)} ms after SIGTERM`
  console.log(`  shutdown (${onPostgres ? 'PostgreSQL' : 'PGlite'}): ${summary}`)

  assert.ok(
    connections.every((c) => c.responses.length > 0),
    `every connection was answered before SIGTERM (${everyConnection} ms)`,
  )
  const lost = tallies.flatMap((t, i) => (t.unanswered > 0 ? [`#${i} ${JSON.stringify(t)}`] : []))
  assert.is(sum('unanswered'), 0, `requests written and never answered: ${lost.join(', ')}`)
  for (const res of all) assert.is(res.status, 200, `${res.status} ${res.body}`)
  // Answers in flight at SIGTERM say close; then answers keep their connections for a moment
  // while the accept queue empties (kernel/http/drain.ts), and once the listener closed every
  // connection is told to close: every connection's last answer says so, and the clients never
  // hit an idle-socket close.
  assert.ok(drainingSeen < Infinity, 'the drain answered with Connection: close')
  for (const conn of connections)
    assert.is(conn.responses.at(-1)?.headers.connection, 'close', app.output())
  assert.is(code, 0, app.output())
  assert.ok(exitAfter < 10_000, `exited ${exitAfter} ms after SIGTERM (drain timeout 30 s)`)
  assert.match(app.output(), 'stopped.')
})

test.run()
