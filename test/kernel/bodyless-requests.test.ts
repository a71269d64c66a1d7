import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { IncomingMessage } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { json } from 'fw'
import { createTestKernel } from 'fw/testing'
import { listening } from '../fixtures/listening.js'

// The server skips Node's drain of a request that declared no body (kernel/http/server.ts
// `nothingToDrain`). These requests go over a real socket, keep-alive and pipelined, and count the
// drains Node starts (`IncomingMessage#resume` on a request nobody read).
const test = suite('requests without a body')

const files = mkdtempSync(join(tmpdir(), 'fw-bodyless-'))
writeFileSync(join(files, 'a.json'), '{"file":true}')
test.after(() => rmSync(files, { recursive: true, force: true }))

function app() {
  const kernel = createTestKernel()
  kernel.router.get('probe/{n}', (ctx) => json({ n: ctx.params.n }))
  kernel.router.post('probe/ignored', () => json({ ignored: true }))
  kernel.router.post('probe/echo', async (ctx) => json({ body: await ctx.body() }))
  kernel.router.get('probe/read', async (ctx) => json({ body: await ctx.body() }))
  kernel.static('probe-files', files)
  return kernel
}

/** Writes `request` on one connection and reads until `count` responses have arrived whole. */
function exchange(port: number, request: string, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write(request))
    let out = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`${count} responses expected, got: ${out}`))
    }, 3000)
    socket.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const responses = split(out)
      if (responses.length < count) return
      clearTimeout(timer)
      socket.end()
      resolve(responses)
    })
    socket.on('error', reject)
  })
}

/** The whole responses in `wire`, each as its head and body (every one has a Content-Length). */
function split(wire: string): string[] {
  const out: string[] = []
  let rest = wire
  for (;;) {
    const head = rest.indexOf('\r\n\r\n')
    if (head === -1) return out
    const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, head))?.[1] ?? 0)
    if (rest.length < head + 4 + length) return out
    out.push(rest.slice(0, head + 4 + length))
    rest = rest.slice(head + 4 + length)
  }
}

const bodyOf = (response: string): unknown =>
  JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))

/** Counts the drains Node starts on requests to `/probe` while `fn` runs. */
async function countingDrains(fn: () => Promise<void>): Promise<number> {
  const resume = IncomingMessage.prototype.resume
  let drains = 0
  IncomingMessage.prototype.resume = function (this: IncomingMessage) {
    if (this.url?.startsWith('/probe') === true) drains++
    return resume.call(this)
  }
  try {
    await fn()
    // Node drains after the response's write has completed: let those callbacks run.
    await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    IncomingMessage.prototype.resume = resume
  }
  return drains
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`

test('GETs one after another and pipelined are answered in order, with no drain', async () => {
  const kernel = app()
  await listening(kernel, async (port) => {
    const drains = await countingDrains(async () => {
      const pipelined = Array.from({ length: 8 }, (_, i) => get(`/probe/${i}`)).join('')
      const answers = await exchange(port, pipelined, 8)
      assert.equal(
        answers.map(bodyOf),
        Array.from({ length: 8 }, (_, i) => ({ n: String(i) })),
      )
      for (let i = 0; i < 3; i++) {
        const [one] = await exchange(port, get(`/probe/${i}`, 'Content-Length: 0\r\n'), 1)
        assert.match(one!, /^HTTP\/1\.1 200 /)
      }
      // A static mount's files too.
      const files = await exchange(port, get('/probe-files/a.json').repeat(2), 2)
      assert.equal(files.map(bodyOf), [{ file: true }, { file: true }])
    })
    assert.is(drains, 0)
  })
})

test('a body nobody read is still drained: the next request on the socket is answered', async () => {
  const kernel = app()
  await listening(kernel, async (port) => {
    const body = JSON.stringify({ filler: 'x'.repeat(2000) })
    let answers: string[] = []
    const drains = await countingDrains(async () => {
      answers = await exchange(
        port,
        `POST /probe/ignored HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
          `GET /probe/1 HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n` +
          get('/probe/2'),
        3,
      )
    })
    assert.equal(answers.map(bodyOf), [{ ignored: true }, { n: '1' }, { n: '2' }])
    // The POST's and the chunked GET's bodies were drained by Node; the last GET had none.
    assert.is(drains, 2)
  })
})

test('a body is still read when a route asks, and a request without one reads as empty', async () => {
  const kernel = app()
  await listening(kernel, async (port) => {
    const posted = await fetch(`http://127.0.0.1:${port}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    })
    assert.equal(await posted.json(), { body: { a: 1 } })
    const [read, after] = await exchange(port, get('/probe/read') + get('/probe/3'), 2)
    assert.equal(bodyOf(read!), { body: {} })
    assert.equal(bodyOf(after!), { n: '3' })
  })
})

test.run()
