// A production playground under a few thousand generated hostile requests on raw sockets: bodies
// over the limit (by a byte and by 20 MB), aborted uploads, malformed chunks, short bodies,
// pipelined bursts, invalid encodings, oversized headers and URLs, smuggling shapes, random bytes.
// After every batch the same process must still answer `GET /_demo/ping`. Loopback only; the
// generator is seeded, so a failure names a batch that replays the same way.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect, type Socket } from 'node:net'
import { mulberry32 } from '../../playground/demo-data.js'
import { servePlayground, type ServedApp } from './serve-process.js'

const BATCHES = 10
const PER_BATCH = 300
const CONCURRENCY = 32
/** The playground's `http.body_limit` (the default, 1 MiB). */
const LIMIT = 1024 * 1024
/** How long one hostile connection may stay open before the client drops it. */
const SOCKET_MS = 1000

const test = suite<{ app: ServedApp; port: number }>('hostile HTTP')

test.before(async (ctx) => {
  ctx.app = await servePlayground({
    NODE_ENV: 'production',
    DATABASE_URL: process.env.DATABASE_URL ?? 'pglite://memory',
    FW_APP_KEY: 'hostile-suite-app-key-0123456789abcdef',
  })
  ctx.port = Number(new URL(ctx.app.url).port)
})

test.after(async (ctx) => {
  await ctx.app.stop()
})

/** One hostile exchange: bytes written in parts, then the socket ended, dropped, or left open. */
interface Hostile {
  readonly shape: string
  readonly parts: readonly (Buffer | { size: number; chunked: boolean })[]
  readonly then: 'end' | 'destroy' | 'wait'
}

const BODY_ROUTES = [
  { path: '/account/login', type: 'application/json', extra: '' },
  { path: '/login', type: 'application/x-www-form-urlencoded', extra: '' },
  { path: '/api/v1/products', type: 'application/json', extra: 'apikey: demo-api-key\r\n' },
  { path: '/api/v1/products', type: 'application/octet-stream', extra: '' },
]

function head(method: string, path: string, headers: string): Buffer {
  return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`, 'latin1')
}

function generate(next: () => number): Hostile {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const route = pick(BODY_ROUTES)
  const typed = `Content-Type: ${route.type}\r\n${route.extra}`
  const shapes: (() => Hostile)[] = [
    () => ({
      shape: 'chunked body one byte over the limit',
      parts: [
        head('POST', route.path, `${typed}Transfer-Encoding: chunked\r\n`),
        { size: LIMIT + 1, chunked: true },
      ],
      then: 'end',
    }),
    () => ({
      shape: 'Content-Length body one byte over the limit',
      parts: [
        head('POST', route.path, `${typed}Content-Length: ${LIMIT + 1}\r\n`),
        { size: LIMIT + 1, chunked: false },
      ],
      then: 'end',
    }),
    () => ({
      shape: 'chunked upload aborted midway',
      parts: [
        head('POST', route.path, `${typed}Transfer-Encoding: chunked\r\n`),
        Buffer.from(`4000\r\n${'a'.repeat(1 + Math.floor(next() * 0x3fff))}`),
      ],
      then: 'destroy',
    }),
    () => ({
      shape: 'malformed chunk size',
      parts: [
        head('POST', route.path, `${typed}Transfer-Encoding: chunked\r\n`),
        Buffer.from(pick(['zz\r\nx\r\n0\r\n\r\n', '5\r\nab', '-1\r\n', 'ffffffffffffffffff\r\n'])),
      ],
      then: 'end',
    }),
    () => ({
      shape: 'Content-Length larger than what arrives',
      parts: [
        head('POST', route.path, `${typed}Content-Length: ${100 + Math.floor(next() * 5000)}\r\n`),
        Buffer.from('{"username":"admin","pass'),
      ],
      then: pick(['end', 'destroy'] as const),
    }),
    () => {
      const count = 5 + Math.floor(next() * 40)
      return {
        shape: 'pipelined burst',
        parts: [
          Buffer.concat(
            Array.from({ length: count }, (_, i) =>
              head(
                pick(['GET', 'HEAD', 'GET', 'OPTIONS', 'DELETE']),
                pick(['/_demo/ping', '/', '/api/v1/products?page=2', '/nowhere', '/_demo/error']),
                // The last one closes: the client reads every answer, then the close.
                i === count - 1 ? 'Connection: close\r\n' : '',
              ),
            ),
          ),
        ],
        then: 'wait',
      }
    },
    () => ({
      shape: 'invalid encodings in the URL and body',
      parts: [
        Buffer.concat([
          Buffer.from(
            `POST ${pick(['/login?return=%E0%A4%A', '/account/login?%zz=1', '/api/v1/products?filter[name]=%ff%fe', '/%c0%af..%c0%af'])} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${typed}Content-Length: 12\r\n\r\n`,
            'latin1',
          ),
          Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]),
        ]),
      ],
      then: 'wait',
    }),
    () => ({
      shape: 'hostile JSON',
      parts: (() => {
        const body = pick([
          '['.repeat(5000) + ']'.repeat(5000),
          '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
          '{"username":"ad\\u0000min","password":"x"}',
          '{"username":1e999999,"password":[]}',
          '{"a":' + '"x",'.repeat(1000) + '}',
        ])
        return [
          head(
            'POST',
            route.path,
            `${typed}Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`,
          ),
          Buffer.from(body),
        ]
      })(),
      then: 'wait',
    }),
    () => ({
      shape: 'oversized header',
      parts: [
        head(
          'GET',
          '/_demo/ping',
          `Connection: close\r\nX-Big: ${'a'.repeat(17_000 + Math.floor(next() * 50_000))}\r\n`,
        ),
      ],
      then: 'wait',
    }),
    () => ({
      shape: 'oversized URL',
      parts: [head('GET', `/_demo/ping?${'q=1&'.repeat(5_000 + Math.floor(next() * 20_000))}`, '')],
      then: 'wait',
    }),
    () => ({
      shape: 'smuggling shapes',
      parts: [
        Buffer.from(
          pick([
            `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /_demo/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
            `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\nabcd`,
            `GET /_demo/ping HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n`,
            `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n`,
            `GET /_demo/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nFoo: bar\rX: y\r\n\r\n`,
            `GET /_demo/ping HTTP/1.1\r\n Host: 127.0.0.1\r\n\r\n`,
          ]),
          'latin1',
        ),
      ],
      then: 'wait',
    }),
    () => ({
      shape: 'random bytes',
      parts: [
        Buffer.from(
          Array.from({ length: 1 + Math.floor(next() * 4000) }, () => Math.floor(next() * 256)),
        ),
      ],
      then: pick(['end', 'wait', 'destroy'] as const),
    }),
  ]
  return pick(shapes)()
}

/** Resolves on the socket's next 'drain' or its close, whichever comes first. */
function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.on('drain', done)
    socket.on('close', done)
  })
}

/** Plays one exchange on its own socket; resolves when the socket closed (or was dropped). */
function play(port: number, hostile: Hostile): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    const drop = setTimeout(() => socket.destroy(), SOCKET_MS)
    socket.on('error', () => undefined)
    socket.on('data', () => undefined)
    socket.on('close', () => {
      clearTimeout(drop)
      resolve()
    })
    socket.on('connect', () => {
      void (async () => {
        for (const part of hostile.parts) {
          if (socket.destroyed) return
          if (Buffer.isBuffer(part)) {
            if (!socket.write(part)) await drained(socket)
            continue
          }
          const piece = Buffer.alloc(65_536, 0x61)
          for (let left = part.size; left > 0 && !socket.destroyed;) {
            const n = Math.min(piece.length, left)
            left -= n
            const bytes = piece.subarray(0, n)
            const ok = part.chunked
              ? socket.write(
                  Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]),
                )
              : socket.write(bytes)
            if (!ok) await drained(socket)
          }
          if (part.chunked && !socket.destroyed) socket.write('0\r\n\r\n')
        }
        if (hostile.then === 'end') socket.end()
        else if (hostile.then === 'destroy') socket.destroy()
      })()
    })
  })
}

async function runBatch(port: number, batch: number): Promise<Record<string, number>> {
  const next = mulberry32(0x5eed + batch)
  const requests = Array.from({ length: PER_BATCH }, () => generate(next))
  // One request of 20 MB over the limit per batch, chunked and by length in turn.
  const route = BODY_ROUTES[batch % BODY_ROUTES.length]!
  const chunked = batch % 2 === 0
  requests.push({
    shape: 'body 20 MB over the limit',
    parts: [
      head(
        'POST',
        route.path,
        `Content-Type: ${route.type}\r\n${route.extra}${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${LIMIT + 20 * 1024 * 1024}`}\r\n`,
      ),
      { size: LIMIT + 20 * 1024 * 1024, chunked },
    ],
    then: 'end',
  })
  const shapes: Record<string, number> = {}
  let index = 0
  const worker = async (): Promise<void> => {
    while (index < requests.length) {
      const hostile = requests[index++]!
      shapes[hostile.shape] = (shapes[hostile.shape] ?? 0) + 1
      await play(port, hostile)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return shapes
}

test('the same process answers the ping after every batch of hostile requests', async ({
  app,
  port,
}) => {
  const pid = app.child.pid
  const seen: Record<string, number> = {}
  for (let batch = 0; batch < BATCHES; batch++) {
    const shapes = await runBatch(port, batch)
    for (const [shape, n] of Object.entries(shapes)) seen[shape] = (seen[shape] ?? 0) + n
    assert.is(
      app.child.exitCode,
      null,
      `the process exited during batch ${batch}:\n${app.output()}`,
    )
    assert.is(app.child.pid, pid)
    const ping = await fetch(`${app.url}/_demo/ping`)
    assert.is(ping.status, 200, `ping after batch ${batch}`)
    assert.equal(await ping.json(), { hello: 'world', n: 1 })
  }
  // Every shape was tried, and the process never reported an escaped error.
  assert.ok(Object.keys(seen).length >= 13, JSON.stringify(seen))
  assert.not.match(app.output(), /Unhandled|uncaught|TypeError|RangeError/i)
})

test('a SIGTERM after the barrage still exits 0', async ({ app }) => {
  assert.is(await app.stop(), 0, app.output())
})

test.run()
