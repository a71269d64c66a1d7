import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { json } from 'fw'
import { createTestKernel } from 'fw/testing'

// The server writes the first reply of a turn of the event loop at once and those that follow it in
// the same turn together, at the turn's end (kernel/http/server.ts `answer`). These
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

/**
 * Serves the test app on a real port, opens `connections` sockets to it, and runs `fn` with every
 * reply's write logged after its handler's run; closes all afterwards.
 */
async function served<T>(
  connections: number,
  fn: (sockets: Socket[], port: number) => Promise<T>,
): Promise<{ result: T; log: string[] }> {
  const log: string[] = []
  const kernel = app(log)
  const { port } = await kernel.listen(0, '127.0.0.1')
  const sockets: Socket[] = []
  try {
    for (let i = 0; i < connections; i++) sockets.push(await open(port))
    const result = await loggingWrites(log, () => fn(sockets, port))
    return { result, log }
  } finally {
    for (const s of sockets) s.destroy()
    await kernel.close(500)
  }
}

test('requests read in one turn from several sockets: the first written at once, the rest together', async () => {
  const { result, log } = await served(3, (sockets) => {
    // Written in one tick: the three requests wait on their sockets for the same poll.
    sockets.forEach((s, i) => s.write(get(`/probe/s${i}`)))
    return Promise.all(sockets.map((s) => responses(s, 1)))
  })
  assert.equal(result, [[{ name: 's0' }], [{ name: 's1' }], [{ name: 's2' }]])
  assert.equal(log, ['handle s0', 'write s0', 'handle s1', 'handle s2', 'write s1', 'write s2'])
})

test('pipelined requests are answered in order, written together', async () => {
  const { result, log } = await served(1, ([socket]) => {
    socket!.write(get('/probe/p0') + get('/later/p1') + get('/probe/p2') + get('/probe/p3'))
    return responses(socket!, 4)
  })
  assert.equal(result, [{ name: 'p0' }, { name: 'p1' }, { name: 'p2' }, { name: 'p3' }])
  // p1 waits for a timer: its reply is the first of the turn that ran it, written at once, after
  // the others (Node keeps the socket's responses in request order whatever order they are
  // written in).
  assert.equal(log, [
    'handle p0',
    'write p0',
    'handle p2',
    'handle p3',
    'write p2',
    'write p3',
    'handle p1',
    'write p1',
  ])
})

test('a full batch of 128 replies is written at once, before the turn reads on', async () => {
  const names = Array.from({ length: 130 }, (_, i) => `n${i}`)
  const { result, log } = await served(1, ([socket]) => {
    socket!.write(names.map((name) => get(`/probe/${name}`)).join(''))
    return responses(socket!, names.length)
  })
  assert.equal(
    result,
    names.map((name) => ({ name })),
  )
  // n0 is written at once; n1…n128 fill a batch, written when full; n129 waits for the turn's end.
  const batch = names.slice(1, 129)
  assert.equal(log, [
    'handle n0',
    'write n0',
    ...batch.map((name) => `handle ${name}`),
    ...batch.map((name) => `write ${name}`),
    'handle n129',
    'write n129',
  ])
})

test('a client gone before the end of the turn costs nothing but its reply', async () => {
  const { result, log } = await served(3, async ([first, gone, staying], port) => {
    first!.write(get('/probe/first'))
    // The request and the connection's reset arrive together: its reply, kept for the end of
    // the turn, finds no socket.
    gone!.write(get('/probe/gone'), () => gone!.resetAndDestroy())
    staying!.write(get('/probe/staying'))
    const bodies = await Promise.all([responses(first!, 1), responses(staying!, 1)])
    // The server goes on answering.
    const again = await fetch(`http://127.0.0.1:${port}/probe/again`)
    return [...bodies, await again.json()]
  })
  assert.equal(result, [[{ name: 'first' }], [{ name: 'staying' }], { name: 'again' }])
  assert.equal(log, [
    'handle first',
    'write first',
    'handle gone',
    'handle staying',
    'write gone',
    'write staying',
    'handle again',
    'write again',
  ])
})

test.run()
