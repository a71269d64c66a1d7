import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { json } from 'fw'
import { createTestKernel } from 'fw/testing'

// The server writes the replies that became ready during one turn of the event loop together, at
// the turn's end (kernel/http/server.ts `answer`), rather than each as soon as it is ready. These
// requests go over real sockets and log, in order, when a handler ran and when the server wrote
// its reply (`ServerResponse#writeHead`, which the server calls once per reply).
const test = suite('replies of one loop turn')

function app(log: string[]) {
  const kernel = createTestKernel()
  kernel.router.get('probe/{name}', (ctx) => {
    log.push(`handle ${ctx.params.name}`)
    return json({ name: ctx.params.name })
  })
  kernel.router.get('later/{name}', async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    log.push(`handle ${ctx.params.name}`)
    return json({ name: ctx.params.name })
  })
  return kernel
}

/** Runs `fn` with every `writeHead` of a response to `/probe` or `/later` logged. */
async function loggingWrites<T>(log: string[], fn: () => Promise<T>): Promise<T> {
  const writeHead = ServerResponse.prototype.writeHead
  ServerResponse.prototype.writeHead = function (
    this: ServerResponse,
    ...args: Parameters<typeof writeHead>
  ) {
    const name = /^\/(?:probe|later)\/(\w+)/.exec(this.req.url ?? '')?.[1]
    if (name !== undefined) log.push(`write ${name}`)
    return writeHead.apply(this, args)
  } as typeof writeHead
  try {
    return await fn()
  } finally {
    ServerResponse.prototype.writeHead = writeHead
  }
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`

/** An open connection to `port`, once the server has accepted it. */
async function open(port: number): Promise<Socket> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' }, () => resolve(s)).once('error', reject)
  })
  // The server accepts one connection per loop turn: let it take this one.
  await new Promise((resolve) => setTimeout(resolve, 20))
  return socket
}

/** The bodies of the next `count` responses on `socket` (each with a Content-Length). */
function responses(socket: Socket, count: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    let wire = ''
    const timer = setTimeout(() => reject(new Error(`${count} responses expected: ${wire}`)), 3000)
    const onData = (chunk: Buffer): void => {
      wire += chunk.toString()
      const bodies: unknown[] = []
      let rest = wire
      for (;;) {
        const head = rest.indexOf('\r\n\r\n')
        if (head === -1) break
        const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, head))?.[1] ?? 0)
        if (rest.length < head + 4 + length) break
        bodies.push(JSON.parse(rest.slice(head + 4, head + 4 + length)))
        rest = rest.slice(head + 4 + length)
      }
      if (bodies.length < count) return
      clearTimeout(timer)
      socket.off('data', onData)
      resolve(bodies)
    }
    socket.on('data', onData)
  })
}

test('requests read in one turn from several sockets are all handled before any is written', async () => {
  const log: string[] = []
  const kernel = app(log)
  const { port } = await kernel.listen(0, '127.0.0.1')
  const sockets = [await open(port), await open(port), await open(port)]
  try {
    const bodies = await loggingWrites(log, async () => {
      // Written in one tick: the three requests wait on their sockets for the same poll.
      sockets.forEach((s, i) => s.write(get(`/probe/s${i}`)))
      return Promise.all(sockets.map((s) => responses(s, 1)))
    })
    assert.equal(bodies, [[{ name: 's0' }], [{ name: 's1' }], [{ name: 's2' }]])
    assert.equal(log, ['handle s0', 'handle s1', 'handle s2', 'write s0', 'write s1', 'write s2'])
  } finally {
    for (const s of sockets) s.destroy()
    await kernel.close(500)
  }
})

test('pipelined requests are answered in order, written together', async () => {
  const log: string[] = []
  const kernel = app(log)
  const { port } = await kernel.listen(0, '127.0.0.1')
  const socket = await open(port)
  try {
    const bodies = await loggingWrites(log, async () => {
      socket.write(get('/probe/p0') + get('/later/p1') + get('/probe/p2'))
      return responses(socket, 3)
    })
    assert.equal(bodies, [{ name: 'p0' }, { name: 'p1' }, { name: 'p2' }])
    // p1 waits for a timer: its reply is written in the turn that ran it, after the other two
    // (Node keeps the socket's responses in request order whatever order they are written in).
    assert.equal(log, ['handle p0', 'handle p2', 'write p0', 'write p2', 'handle p1', 'write p1'])
  } finally {
    socket.destroy()
    await kernel.close(500)
  }
})

test('a full batch of 128 replies is written at once, before the turn reads on', async () => {
  const log: string[] = []
  const kernel = app(log)
  const { port } = await kernel.listen(0, '127.0.0.1')
  const socket = await open(port)
  try {
    const names = Array.from({ length: 130 }, (_, i) => `n${i}`)
    const bodies = await loggingWrites(log, async () => {
      socket.write(names.map((name) => get(`/probe/${name}`)).join(''))
      return responses(socket, names.length)
    })
    assert.equal(
      bodies,
      names.map((name) => ({ name })),
    )
    const first = names.slice(0, 128)
    const rest = names.slice(128)
    assert.equal(log, [
      ...first.map((name) => `handle ${name}`),
      ...first.map((name) => `write ${name}`),
      ...rest.map((name) => `handle ${name}`),
      ...rest.map((name) => `write ${name}`),
    ])
  } finally {
    socket.destroy()
    await kernel.close(500)
  }
})

test('a client gone before the end of the turn costs nothing but its reply', async () => {
  const log: string[] = []
  const kernel = app(log)
  const { port } = await kernel.listen(0, '127.0.0.1')
  const gone = await open(port)
  const staying = await open(port)
  try {
    const bodies = await loggingWrites(log, async () => {
      // The request and the connection's reset arrive together: the reply finds no socket.
      gone.write(get('/probe/gone'), () => gone.resetAndDestroy())
      staying.write(get('/probe/staying'))
      return responses(staying, 1)
    })
    assert.equal(bodies, [{ name: 'staying' }])
    // Both were handled in the same turn, and the reply to the gone client was attempted.
    assert.equal(log, ['handle gone', 'handle staying', 'write gone', 'write staying'])
    const again = await fetch(`http://127.0.0.1:${port}/probe/again`)
    assert.equal(await again.json(), { name: 'again' })
  } finally {
    staying.destroy()
    await kernel.close(500)
  }
})

test.run()
