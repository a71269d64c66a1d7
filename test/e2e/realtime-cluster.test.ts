// Server-sent events across instances: three playground processes on one PostgreSQL database behind
// HAProxy. A product created through the API of one instance reaches the products channel's
// clients on all three (connected directly and through HAProxy); a client that reconnects through
// HAProxy, landing on another instance, resumes with `Last-Event-ID` and loses nothing; a stopping
// instance ends its streams cleanly and the client reconnects to the others. PGlite belongs to one
// process, so there is no second instance to reach: this suite exists only on the PostgreSQL pass
// (DATABASE_URL=postgresql://…; CI runs it). test/e2e/realtime-playground.test.ts runs on both.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openEvents, type SseStream } from '../plugins/realtime/sse-client.js'
import { freePort } from '../fixtures/free-port.js'
import { HAPROXY, haproxyConfig } from './rolling-cluster.js'
import { servePlaygrounds, type PlaygroundCluster, type ServedApp } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

interface Context {
  cluster?: PlaygroundCluster
  apps: readonly ServedApp[]
  haproxy?: ChildProcess
  front?: string
  dir?: string
  streams: SseStream[]
}
const test = suite<Context>('realtime cluster', { apps: [], streams: [] })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** HAProxy's status of each server (`UP`, `DOWN`, …), from its stats socket. */
function states(socket: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket)
    let out = ''
    conn.setEncoding('utf8')
    conn.on('data', (c: string) => (out += c))
    conn.on('end', () =>
      resolve(
        out
          .split('\n')
          .filter((l) => l.startsWith('fw,fw'))
          .map((l) => l.split(',')[17] ?? ''),
      ),
    )
    conn.on('error', reject)
    conn.write('show stat\n')
  })
}

test.before(async (context) => {
  if (!onPostgres) return
  // A short heartbeat: HAProxy's `timeout server` must not cut an idle stream.
  context.cluster = await servePlaygrounds(3, {
    FW_APP_KEY: 'base64:e2e-realtime-key',
    FW_CONFIG: JSON.stringify({ realtime: { heartbeat: 5 } }),
  })
  context.apps = context.cluster.apps
  const dir = (context.dir = mkdtempSync(join(tmpdir(), 'fw-realtime-')))
  const front = await freePort()
  const socket = join(dir, 'haproxy.sock')
  const ports = context.apps.map((a) => Number(new URL(a.url).port))
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig(front, ports, socket))
  context.haproxy = spawn(HAPROXY, ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' })
  context.front = `http://127.0.0.1:${front}`
  for (let i = 0; ; i++) {
    const now = await states(socket).catch(() => [])
    if (now.length === 3 && now.every((s) => s === 'UP')) break
    if (i > 200) throw new Error(`HAProxy's servers not UP: ${now.join(', ')}`)
    await sleep(50)
  }
})

test.after.each((context) => {
  for (const s of context.streams.splice(0)) s.close()
})

test.after(async (context) => {
  context.haproxy?.kill('SIGTERM')
  if (context.dir !== undefined) rmSync(context.dir, { recursive: true, force: true })
  await context.cluster?.close()
})

let skus = 0
/** Creates a product through the API of `base`; answers its id. */
async function createProduct(base: string): Promise<number> {
  const res = await fetch(`${base}/api/v1/products`, {
    method: 'POST',
    headers: { apikey: 'demo-api-key', 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Live',
      sku: `LIVE-${process.pid}-${++skus}`,
      price: 1,
      stock: 1,
    }),
  })
  assert.is(res.status, 201, await res.clone().text())
  return ((await res.json()) as { id: number }).id
}

async function open(context: Context, url: string, lastEventId?: string): Promise<SseStream> {
  const stream = await openEvents(`${url}/events/products`, { lastEventId })
  assert.is(stream.status, 200)
  context.streams.push(stream)
  return stream
}

test('a product created on one instance reaches the clients of all three', async (context) => {
  if (!onPostgres) return
  const direct = await Promise.all(context.apps.map((a) => open(context, a.url)))
  const proxied = await Promise.all([1, 2, 3].map(() => open(context, context.front!)))
  const ids = [await createProduct(context.apps[0]!.url), await createProduct(context.apps[2]!.url)]
  for (const stream of [...direct, ...proxied]) {
    const events = await stream.waitFor(2)
    assert.equal(
      events.map((e) => [e.event, JSON.parse(e.data).id]),
      ids.map((id) => ['created', id]),
    )
    // One id per event, the same on every instance.
    assert.equal(
      events.map((e) => e.id),
      direct[0]!.events.map((e) => e.id),
    )
  }
})

test('a client reconnecting through HAProxy with Last-Event-ID loses nothing', async (context) => {
  if (!onPostgres) return
  // One watcher on each instance: it has an event once that instance has buffered it.
  const watchers = await Promise.all(context.apps.map((a) => open(context, a.url)))
  let published = 0
  const everywhere = () => Promise.all(watchers.map((w) => w.waitFor(published, 10_000)))
  const first = await open(context, context.front!)
  await createProduct(context.apps[1]!.url)
  published++
  await first.waitFor(1)
  let last = first.lastEventId!
  first.close()
  // Three times, so that HAProxy's round robin lands the client on each instance in turn.
  for (let round = 0; round < 3; round++) {
    const missed: number[] = []
    for (const app of context.apps) missed.push(await createProduct(app.url))
    published += missed.length
    await everywhere()
    const back = await open(context, context.front!, last)
    const replayed = await back.waitFor(3)
    assert.equal(
      replayed.map((e) => JSON.parse(e.data).id),
      missed,
      `round ${round}`,
    )
    last = back.lastEventId!
    back.close()
  }
})

test('a stopping instance ends its streams cleanly; the client reconnects to another', async (context) => {
  if (!onPostgres) return
  const stopping = context.apps[2]!
  const stream = await open(context, stopping.url)
  const exit = stopping.stop()
  assert.is(await stream.ended, 'end')
  assert.ok(stream.comments.includes('server stopping'))
  assert.is(await exit, 0)
  const elsewhere = await open(context, context.front!)
  const id = await createProduct(context.apps[0]!.url)
  assert.is(JSON.parse((await elsewhere.waitFor(1))[0]!.data).id, id)
})

test.run()
