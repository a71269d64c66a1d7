import { readFileSync, existsSync } from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel, RequestContext } from 'fw'
import { createTestKernel } from 'fw/testing'
import debug from 'fw/plugins/debug'
import logging from 'fw/plugins/logging'
import { KEY, nowSeconds, tokenFor } from './helpers.js'

const test = suite('debug: the dev panel')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function panelKernel(features = ['debug', 'DevPanel'], development = true): Kernel {
  const kernel = createTestKernel({
    // The access log off: the panel's counts below are the routes' own lines.
    config: {
      app: { name: 'panel', key: KEY },
      development,
      features,
      logging: { access_log: false },
    },
  })
  kernel.register(logging, { file: 'var/log/panel.log' })
  kernel.register(debug)
  kernel.hooks.authenticate.tapPromise('test-admin', async (ctx) =>
    ctx.header('x-admin') === '1'
      ? { via: 'test', id: 1, usertype: 100 }
      : ctx.header('x-user') === '1'
        ? { via: 'test', id: 2, usertype: 10 }
        : undefined,
  )
  const logger = (ctx: RequestContext) => kernel.plugin('logging').logger(ctx)
  kernel.router.get('slow', async (ctx) => {
    for (let i = 1; i <= 3; i++) {
      logger(ctx).info(`slow ${i}`, { step: i, password: 'pw' })
      await sleep(15)
    }
    return { id: ctx.state.requestId }
  })
  kernel.router.get('busy', async (ctx) => {
    for (let i = 1; i <= 4; i++) {
      logger(ctx).info(`busy ${i}`)
      await sleep(7)
    }
    return { id: ctx.state.requestId }
  })
  return kernel
}

async function waitForLines(file: string, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= n)
      return
    await sleep(10)
  }
  throw new Error(`the log never reached ${n} lines`)
}

const admin = { 'x-admin': '1' }

test('returns exactly one request’s lines while another request logs concurrently', async () => {
  const kernel = panelKernel()
  await kernel.boot()
  const [slow, busy] = await Promise.all([kernel.inject('/slow'), kernel.inject('/busy')])
  const slowId = slow.json<{ id: string }>().id
  const busyId = busy.json<{ id: string }>().id
  assert.match(slowId, /^[0-9a-f]{16}$/)
  assert.is.not(slowId, busyId)
  const file = kernel.plugin('logging').file!
  await waitForLines(file, 7)
  const res = await kernel.inject({ url: `/devpanel/logs?request=${slowId}`, headers: admin })
  assert.is(res.status, 200)
  assert.is(res.headers['cache-control'], 'no-store, private')
  const body = res.json<{
    request: string
    count: number
    lines: {
      message: string
      level: string
      file: string
      timestamp: string
      context: Record<string, unknown>
    }[]
  }>()
  assert.is(body.request, slowId)
  assert.is(body.count, 3)
  assert.equal(
    body.lines.map((l) => l.message),
    ['slow 1', 'slow 2', 'slow 3'],
  )
  assert.is(body.lines[0]!.level, 'info')
  assert.is(body.lines[0]!.file, 'panel.log')
  assert.match(body.lines[0]!.timestamp, /^\d{4}-/)
  assert.is(body.lines[0]!.context.step, 1)
  assert.is(body.lines[0]!.context.password, '***')
  const other = (
    await kernel.inject({ url: `/devpanel/logs?request=${busyId}`, headers: admin })
  ).json<{ count: number }>()
  assert.is(other.count, 4)
  const page = await kernel.inject({ url: '/devpanel', headers: admin })
  assert.is(page.status, 200)
  assert.ok(page.body.includes(slowId) && page.body.includes(busyId))
  assert.ok(page.body.indexOf('slow 1') < page.body.indexOf('slow 2'))
  await kernel.close()
})

test('400 for a malformed id, 403 without admin or grant, a grant is enough, 404 when off', async () => {
  const kernel = panelKernel(['debug', 'DevPanel'], false)
  for (const bad of ['', 'ABCDEF0123456789', '0123', '0123456789abcdeg', '0123456789abcdef0'])
    assert.is(
      (await kernel.inject({ url: `/devpanel/logs?request=${bad}`, headers: admin })).status,
      400,
      bad,
    )
  const bad = await kernel.inject('/devpanel/logs?request=nope')
  assert.ok(typeof bad.json<{ error: string }>().error === 'string')
  const id = '0123456789abcdef'
  assert.is((await kernel.inject(`/devpanel/logs?request=${id}`)).status, 403)
  assert.is(
    (await kernel.inject({ url: `/devpanel/logs?request=${id}`, headers: { 'x-user': '1' } }))
      .status,
    403,
  )
  assert.is((await kernel.inject('/devpanel')).status, 403)
  const token = tokenFor(nowSeconds() + 600)
  const granted = await kernel.inject({
    url: `/devpanel/logs?request=${id}`,
    headers: { cookie: `fw_debug=${token}` },
  })
  assert.is(granted.status, 200)
  assert.is(granted.json<{ count: number }>().count, 0)
  await kernel.close()
  const off = panelKernel(['debug'])
  assert.is((await off.inject({ url: `/devpanel/logs?request=${id}`, headers: admin })).status, 404)
  assert.is((await off.inject({ url: '/devpanel', headers: admin })).status, 404)
  await off.close()
})

test('production without a grant: log lines carry no request id, format unchanged', async () => {
  const kernel = panelKernel(['debug', 'DevPanel'], false)
  await kernel.boot()
  const res = await kernel.inject('/busy')
  assert.is(res.json<{ id?: string }>().id, undefined)
  const file = kernel.plugin('logging').file!
  await waitForLines(file, 4)
  await kernel.close()
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  for (const line of lines) {
    assert.is(line.request, undefined)
    assert.equal(Object.keys(line), ['level', 'time', 'app', 'msg'])
  }
})

test('spa: true drops the /devpanel page and keeps its log endpoint', async () => {
  const kernel = createTestKernel({
    config: {
      app: { name: 'panel', key: KEY },
      development: true,
      features: ['debug', 'DevPanel'],
    },
  })
  kernel.register(logging, { file: 'var/log/panel-spa.log' })
  kernel.register(debug, { spa: true })
  kernel.hooks.authenticate.tapPromise('test-admin', async () => ({
    via: 'test',
    id: 1,
    usertype: 100,
  }))
  await kernel.boot()
  const page = await kernel.inject({ url: '/devpanel', headers: { accept: 'application/json' } })
  assert.is(page.status, 404)
  const logs = await kernel.inject({
    url: '/devpanel/logs?request=0123456789abcdef',
    headers: { accept: 'application/json' },
  })
  assert.is(logs.status, 200)
  const body = logs.json<{ request: string; count: number; lines: unknown[] }>()
  assert.equal([body.request, body.count, body.lines], ['0123456789abcdef', 0, []])
  const names = kernel.router.routes().map((r) => r.path)
  assert.ok(names.includes('devpanel/logs') && !names.includes('devpanel'), names.join(', '))
  await kernel.close()
})

test.run()
