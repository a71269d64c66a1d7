// The realtime plugin over real sockets (an event stream never ends, so `inject()` cannot read
// one). With DATABASE_URL naming a PostgreSQL server, on a database of the suite's own, through
// NOTIFY (two kernels on it then: an event published on either reaches the other's subscribers);
// otherwise in process.
import net from 'node:net'
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { FwError, json, type Kernel } from 'fw'
import { createTestKernel, type MemoryLogger } from 'fw/testing'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import realtime, { type RealtimeOptions } from 'fw/plugins/realtime'
import { openEvents } from './sse-client.js'
import { onPostgres } from '../../fixtures/on-postgres.js'

interface Context {
  db?: TestDatabase
  kernels: Kernel[]
}
const test = suite<Context>('realtime', { kernels: [] })

const channels: RealtimeOptions['channels'] = {
  news: { authorize: 'public' },
  // `orders.{id}`: only the user whose id is the channel's (`?user=` stands in for a session).
  'orders.{id}': { authorize: (ctx, { id }) => ctx.query.user === id },
}

/** A listening kernel with the realtime plugin, `POST /publish/{channel}/{event}` publishing its body. */
async function start(context: Context, realtimeConfig: Record<string, number> = {}) {
  const kernel = createTestKernel({
    config: { realtime: realtimeConfig } as never,
    // On PGlite the plugin delivers in process whether or not the database plugin is there (the
    // playground's suites run it with one); opening an embedded database per test would only
    // slow the suite down.
    plugins: onPostgres
      ? [
          [database, { url: context.db!.url, entities: [] }],
          [realtime, { channels }],
        ]
      : [[realtime, { channels }]],
  })
  kernel.router.post('publish/{channel}/{event}', async (ctx) =>
    json(
      await ctx.kernel
        .plugin('realtime')
        .publish(ctx.params.channel!, ctx.params.event!, await ctx.body(), ctx),
    ),
  )
  const { url } = await kernel.listen(0, '127.0.0.1')
  context.kernels.push(kernel)
  return { kernel, url }
}

test.before(async (context) => {
  context.db = await createTestDatabase()
})

test.after.each(async (context) => {
  await Promise.all(context.kernels.splice(0).map((k) => k.close(1000, 0)))
})

test.after(async (context) => {
  await context.db?.drop()
})

async function publish(url: string, channel: string, event: string, data: unknown) {
  const res = await fetch(`${url}/publish/${channel}/${event}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(data),
  })
  assert.is(res.status, 200, await res.clone().text())
  return (await res.json()) as { id: string; shared: boolean }
}

/**
 * Publishes one `n` event per value, in turn, and resolves with their ids once this instance has
 * delivered them all (on PostgreSQL a publication resolves when NOTIFY is sent; the LISTEN
 * delivers it a little later, and a test that resumes must find every event buffered).
 */
async function publishDelivered(url: string, values: readonly unknown[]): Promise<string[]> {
  const watcher = await openEvents(`${url}/events/news`)
  const ids: string[] = []
  for (const value of values) ids.push((await publish(url, 'news', 'n', value)).id)
  await watcher.waitFor(values.length)
  watcher.close()
  return ids
}

test('streams each event published on the channel, with its id, name and data', async (context) => {
  const { url } = await start(context)
  // Compression (on by default) would hold events back in its buffer: never on a stream.
  const stream = await openEvents(`${url}/events/news`, {
    headers: { 'accept-encoding': 'gzip, br' },
  })
  assert.is(stream.status, 200)
  assert.is(stream.headers['content-encoding'], undefined)
  assert.is(stream.headers['content-type'], 'text/event-stream; charset=utf-8')
  assert.is(stream.headers['cache-control'], 'no-store')
  const first = await publish(url, 'news', 'posted', { title: 'one' })
  assert.is(first.shared, onPostgres)
  await publish(url, 'news', 'posted', { title: 'two' })
  const events = await stream.waitFor(2)
  assert.equal(
    events.map((e) => [e.event, JSON.parse(e.data)]),
    [
      ['posted', { title: 'one' }],
      ['posted', { title: 'two' }],
    ],
  )
  assert.is(events[0]!.id, first.id)
  assert.is(stream.retry, 2000)
  stream.close()
})

test('reaches subscribers of every kernel on the database (one on PGlite)', async (context) => {
  const a = await start(context)
  const b = onPostgres ? await start(context) : a
  const onA = await openEvents(`${a.url}/events/news`)
  const onB = await openEvents(`${b.url}/events/news`)
  await publish(a.url, 'news', 'posted', { from: 'a' })
  await publish(b.url, 'news', 'posted', { from: 'b' })
  const seenA = (await onA.waitFor(2)).map((e) => e.data)
  const seenB = (await onB.waitFor(2)).map((e) => e.data)
  // One order for every instance: PostgreSQL's.
  assert.equal(seenA, seenB)
  assert.equal(seenA.map((d) => JSON.parse(d).from).sort(), ['a', 'b'])
  onA.close()
  onB.close()
})

test('a burst of concurrent publications reaches every subscriber whole, in one order', async (context) => {
  const a = await start(context)
  const b = onPostgres ? await start(context) : a
  const streams = await Promise.all([a, a, b, b].map((k) => openEvents(`${k.url}/events/news`)))
  // Nobody waits for these notifications: no instance confirms them, and the listening
  // connections never get a statement while one runs (pg warns when they do).
  const acks: string[] = []
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.message)
  process.on('warning', onWarning)
  const watcher = onPostgres ? new pg.Client({ connectionString: context.db!.url }) : undefined
  await watcher?.connect()
  watcher?.on('notification', (n) => acks.push(n.payload ?? ''))
  await watcher?.query('listen "fw_notify_ack"')
  const sent = await Promise.all(
    Array.from({ length: 100 }, (_, i) => publish(i % 2 === 0 ? a.url : b.url, 'news', 'n', { i })),
  )
  const orders = await Promise.all(
    streams.map(async (s) => (await s.waitFor(100, 15_000)).map((e) => e.id)),
  )
  assert.is(new Set(sent.map((p) => p.id)).size, 100)
  assert.equal(new Set(orders[0]), new Set(sent.map((p) => p.id)))
  for (const order of orders) assert.equal(order, orders[0])
  for (const s of streams) s.close()
  await watcher?.end()
  process.off('warning', onWarning)
  assert.equal(acks, [])
  assert.equal(
    warnings.filter((w) => w.includes('already executing')),
    [],
  )
})

test('resumes after Last-Event-ID with the buffered events, and resets for an unknown id', async (context) => {
  const { url } = await start(context)
  const ids = await publishDelivered(
    url,
    [1, 2, 3, 4, 5].map((i) => ({ i })),
  )
  const resumed = await openEvents(`${url}/events/news`, { lastEventId: ids[1] })
  const replayed = await resumed.waitFor(3)
  assert.equal(
    replayed.map((e) => e.id),
    ids.slice(2),
  )
  await publish(url, 'news', 'n', { i: 6 })
  assert.is(JSON.parse((await resumed.waitFor(4))[3]!.data).i, 6)
  const lost = await openEvents(`${url}/events/news`, { lastEventId: 'gone.1' })
  const [reset] = await lost.waitFor(1)
  assert.is(reset!.event, 'fw-reset')
  assert.is(reset!.id, undefined)
  // An id longer than any the plugin makes is not looked up: a reset, like any unknown id.
  const long = await openEvents(`${url}/events/news`, {
    lastEventId: `${ids[1]}${'x'.repeat(5000)}`,
  })
  assert.is((await long.waitFor(1))[0]!.event, 'fw-reset')
  long.close()
  resumed.close()
  lost.close()
})

test('keeps only realtime.replay_events per channel: an id older than that resets', async (context) => {
  const { url } = await start(context, { replay_events: 3 })
  const ids = await publishDelivered(
    url,
    [1, 2, 3, 4, 5, 6].map((i) => ({ i })),
  )
  const inWindow = await openEvents(`${url}/events/news`, { lastEventId: ids[2] })
  assert.equal(
    (await inWindow.waitFor(3)).map((e) => e.id),
    ids.slice(3),
  )
  const tooOld = await openEvents(`${url}/events/news`, { lastEventId: ids[1] })
  assert.is((await tooOld.waitFor(1))[0]!.event, 'fw-reset')
  inWindow.close()
  tooOld.close()
})

test('on PostgreSQL, a lost notification connection resets open streams and the buffers', async (context) => {
  if (!onPostgres) return // PGlite: no connection to lose, events never leave the process
  const { url } = await start(context)
  const open = await openEvents(`${url}/events/news`)
  const { id } = await publish(url, 'news', 'n', { i: 1 })
  await open.waitFor(1) // delivered through this instance's LISTEN
  const sql = new pg.Client({ connectionString: context.db!.url })
  await sql.connect()
  try {
    // Events published while it reconnects would be missed: the open stream is told to reset.
    await sql.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and application_name = 'fw-notifications'`,
    )
  } finally {
    await sql.end()
  }
  const reset = (await open.waitFor(2, 10_000))[1]
  assert.is(reset!.event, 'fw-reset')
  // The buffer may have a gap: an id from before the loss resets too; events flow again.
  const resumed = await openEvents(`${url}/events/news`, { lastEventId: id })
  assert.is((await resumed.waitFor(1))[0]!.event, 'fw-reset')
  await publish(url, 'news', 'n', { i: 2 })
  assert.is(JSON.parse((await open.waitFor(3))[2]!.data).i, 2)
  open.close()
  resumed.close()
})

test('a resumed stream may hold its replayed events on top of max_buffered_bytes', async (context) => {
  const { kernel, url } = await start(context, { max_buffered_bytes: 16 * 1024 })
  const api = kernel.plugin('realtime')
  // The app's own route: the stream is answered, and an event published before it is written.
  kernel.router.get('resume-then-publish', async (ctx) => {
    const reply = await api.stream(ctx, 'news')
    await api.publish('news', 'live', { last: true })
    return reply
  })
  // Delivered before the stream opens (through NOTIFY on PostgreSQL), so all are in the buffer.
  const ids = await publishDelivered(
    url,
    Array.from({ length: 10 }, () => 'x'.repeat(6000)),
  )
  const resumed = await openEvents(`${url}/resume-then-publish`, { lastEventId: ids[0] })
  const events = await resumed.waitFor(10)
  assert.equal(events.map((e) => e.id).slice(0, 9), ids.slice(1))
  assert.is(events[9]!.event, 'live')
  resumed.close()
})

test('sends a heartbeat comment on an idle stream', async (context) => {
  const { url } = await start(context, { heartbeat: 1 })
  const stream = await openEvents(`${url}/events/news`)
  for (let i = 0; i < 40 && stream.comments.length === 0; i++)
    await new Promise((r) => setTimeout(r, 50))
  assert.equal(stream.comments.slice(0, 1), [''])
  stream.close()
})

test('authorises per channel: 403 for another user, 404 for an undeclared channel', async (context) => {
  const { kernel, url } = await start(context)
  const own = await openEvents(`${url}/events/orders.7?user=7`)
  assert.is(own.status, 200)
  own.close()
  const other = await kernel.inject({
    url: '/events/orders.7?user=8',
    headers: { accept: 'application/json' },
  })
  assert.is(other.status, 403)
  assert.equal(other.json(), {
    error: 'forbidden',
    message: 'You may not listen to this channel.',
  })
  assert.equal(
    other.events.filter((e) => e.type === 'realtime.refused').map((e) => e.data),
    [{ channel: 'orders.7', reason: 'forbidden' }],
  )
  const unknown = await kernel.inject({
    url: '/events/secrets',
    headers: { accept: 'application/json' },
  })
  assert.is(unknown.status, 404)
  // A channel name no client could be granted: 404, and the log keeps 200 characters of it.
  const huge = await kernel.inject({
    url: `/events/${'a'.repeat(5000)}`,
    headers: { accept: 'application/json' },
  })
  assert.is(huge.status, 404)
  const logged = huge.events.find((e) => e.type === 'realtime.refused')!.data as { channel: string }
  assert.is(logged.channel.length, 200)
  assert.is((unknown.json() as { error: string }).error, 'unknown_channel')
  // A refused client never sees an event of the channel.
  const refused = await fetch(`${url}/events/orders.7?user=8`)
  assert.is(refused.status, 403)
})

test('records each subscription and publication in its request log', async (context) => {
  const { kernel, url } = await start(context)
  const res = await kernel.inject({
    method: 'POST',
    url: '/publish/news/posted',
    body: { a: 1 },
  })
  const published = res.events.filter((e) => e.type === 'realtime.published')
  assert.is(published.length, 1)
  assert.equal(
    { ...published[0]!.data, id: '' },
    { channel: 'news', event: 'posted', id: '', bytes: 7, shared: onPostgres },
  )
  // A stream's log, through a route of the app's own that answers with `stream()`.
  let subscribed: unknown
  kernel.hooks.annotate.tap('test', (_reply, ctx) => {
    subscribed ??= ctx.log.ofType('realtime.subscribed')[0]?.data
  })
  const stream = await openEvents(`${url}/events/news`)
  assert.equal(subscribed, { channel: 'news', resumed: false, replayed: 0, reset: false })
  stream.close()
})

test('shows what a request published under _debug.realtime in development', async () => {
  const kernel = createTestKernel({
    config: { development: true, features: ['debug'] } as never,
    plugins: [[debug], [realtime, { channels }]],
  })
  kernel.router.post('p', async (ctx) =>
    json(await kernel.plugin('realtime').publish('news', 'e', { a: 1 }, ctx)),
  )
  await kernel.boot()
  const res = await kernel.inject({
    method: 'POST',
    url: '/p',
    headers: { accept: 'application/json' },
  })
  const shown = (res.json() as { id: string; _debug: { realtime: unknown } })._debug.realtime as {
    published: { channel: string; id: string }[]
    subscribed: unknown[]
  }
  assert.equal(
    shown.published.map((p) => [p.channel, p.id]),
    [['news', (res.json() as { id: string }).id]],
  )
  assert.equal(shown.subscribed, [])
  const refused = await kernel.inject({
    url: '/events/secrets',
    headers: { accept: 'application/json' },
  })
  const report = (refused.json() as { _debug: { realtime: { refused: object[] } } })._debug.realtime
  assert.equal(
    report.refused.map((r) => ({ ...r, at: 0 })),
    [{ at: 0, channel: 'secrets', reason: 'unknown' }],
  )
})

test('refuses a publication it cannot carry, by code', async (context) => {
  const { kernel } = await start(context)
  const api = kernel.plugin('realtime')
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'published',
      (e: unknown) => (e instanceof FwError ? e.code : String(e)),
    )
  assert.is(await codeOf(api.publish('news', 'big', 'x'.repeat(7001))), 'FW_ERR_REALTIME_PAYLOAD')
  assert.is(await codeOf(api.publish('news', 'bad\nname', {})), 'FW_ERR_REALTIME_INVALID')
  assert.is(await codeOf(api.publish('news', 'fw-reset', {})), 'FW_ERR_REALTIME_INVALID')
  assert.is(await codeOf(api.publish('no/such', 'e', {})), 'FW_ERR_REALTIME_INVALID')
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  assert.is(await codeOf(api.publish('news', 'e', cyclic)), 'FW_ERR_REALTIME_PAYLOAD')
  assert.throws(() => api.channel('news', { authorize: 'public' }), /declared already/)
  assert.throws(() => api.channel('open', {} as never), /give `authorize`/)
})

test('answers 503 with Retry-After past realtime.max_subscribers', async (context) => {
  const { kernel, url } = await start(context, { max_subscribers: 1 })
  const first = await openEvents(`${url}/events/news`)
  const second = await fetch(`${url}/events/news`, { headers: { accept: 'application/json' } })
  assert.is(second.status, 503)
  assert.is(second.headers.get('retry-after'), '2')
  first.close()
  // The closed stream's place is free again.
  for (let i = 0; i < 40 && kernel.plugin('realtime').subscribers > 0; i++)
    await new Promise((r) => setTimeout(r, 25))
  const third = await openEvents(`${url}/events/news`)
  assert.is(third.status, 200)
  third.close()
})

test('disconnects a client that stops reading once it holds max_buffered_bytes, and only it', async (context) => {
  const { kernel, url } = await start(context, { max_buffered_bytes: 16 * 1024 })
  const { port } = new URL(url)
  // A client that sends its request and never reads: the socket's buffers fill, then the stream's.
  const slow = net.connect(Number(port), '127.0.0.1')
  slow.write('GET /events/news HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n')
  slow.pause()
  const fast = await openEvents(`${url}/events/news`)
  const api = kernel.plugin('realtime')
  for (let i = 0; i < 40 && api.subscribers < 2; i++) await new Promise((r) => setTimeout(r, 25))
  assert.is(api.subscribers, 2)
  const chunk = 'x'.repeat(6000)
  let sent = 0
  // Until the server gives up on it (loopback buffers a few MB before the stream's queue grows).
  while (api.subscribers === 2 && sent < 10_000) {
    await api.publish('news', 'chunk', chunk)
    sent++
    // The fast client keeps up: it has read each event before the next is published.
    await fast.waitFor(sent, 5000)
  }
  assert.is(api.subscribers, 1, `the slow client is still subscribed after ${sent} events`)
  // Reading again, the slow client finds its connection closed short of what was published.
  let received = 0
  slow.on('data', (c: Buffer) => (received += c.length))
  slow.resume()
  await new Promise((resolve) => slow.on('close', resolve))
  assert.ok(received < sent * chunk.length, `${received} bytes of ${sent * chunk.length}`)
  const logged = (kernel.logger as MemoryLogger).entries.map((e) =>
    String((e.context as { error?: unknown } | undefined)?.error),
  )
  assert.ok(
    logged.some((m) => m.includes('SlowSubscriberError')),
    'the drop is logged',
  )
  // The fast client got every event, in order.
  await fast.waitFor(sent, 20_000)
  assert.is(fast.events.length, sent)
  fast.close()
})

test('a stop ends every stream cleanly at once, so the drain does not wait for it', async (context) => {
  const { kernel, url } = await start(context)
  const stream = await openEvents(`${url}/events/news`)
  await publish(url, 'news', 'n', { i: 1 })
  await stream.waitFor(1)
  // A 60 s drain timeout: were the stream cut at the timeout, the test would time out first. A
  // 300 ms shutdown delay: the instance still accepts, and a stream opened then ends at once.
  const closing = kernel.close(60_000, 300)
  assert.is(await stream.ended, 'end')
  assert.ok(stream.comments.includes('server stopping'))
  const late = await openEvents(`${url}/events/news`)
  assert.is(late.status, 200)
  assert.is(await late.ended, 'end')
  assert.is(late.retry, 2000)
  assert.equal([late.events, late.comments], [[], ['server stopping']])
  await closing
  context.kernels.splice(context.kernels.indexOf(kernel), 1)
})

test.run()
