// The playground's product import (the admin area's `imports` controller and its background job)
// over a real socket, on the test database (PGlite, or PostgreSQL under DATABASE_URL): the serving
// process runs the jobs (development), an admin's CSV of 10,000 lines is imported by one job with
// its failed lines reported by number, its progress read from the JSON endpoint, an interrupted
// import resumes without inserting a line twice, and bad uploads and callers are refused.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { PNG } from '../plugins/uploads/upload-app.js'
import { playgroundApp, signIn, type PlaygroundApp } from '../plugins/api/fixtures.js'

const HEADER = 'name,sku,price,stock,active,tags,notes,category_id'

interface Progress {
  id: number
  status: string
  done: number
  total: number | null
  inserted: number
  failed: number
  error: string | null
  failures: Array<{ line: number; column: string; message: string }>
}

const test = suite<{
  app: PlaygroundApp
  url: string
  dir: string
  /** Request headers of the signed-in admin's web session (cookie and CSRF token). */
  admin: { cookie: string; 'x-csrf-token': string }
}>('playground product import')

test.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'fw-playground-imports-'))
  context.app = await playgroundApp({ admin: { prefix: 'admin' }, uploads: { dir: context.dir } })
  context.url = (await context.app.kernel.listen(0, '127.0.0.1')).url
  const { session, csrf } = await signIn(context.app.kernel, 'admin')
  context.admin = { cookie: `fw_session=${session}`, 'x-csrf-token': csrf }
})
test.after(async ({ app, dir }) => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A product line of the CSV: valid, its sku `<prefix>-<i>`. */
const line = (prefix: string, i: number) =>
  `Product ${i},${prefix}-${i},${i % 100}.25,${i % 50},true,lamp|desk,,${(i % 10) + 1}`

/** `count` product lines under the header, line `i` (its file line is i + 1) replaced by `bad`. */
function csv(prefix: string, count: number, bad: Record<number, string> = {}): string {
  const lines = [HEADER]
  for (let i = 1; i <= count; i++) lines.push(bad[i] ?? line(prefix, i))
  return `${lines.join('\n')}\n`
}

function upload(
  { url }: { url: string },
  headers: Record<string, string>,
  content: string | Buffer,
  name = 'products.csv',
) {
  const form = new FormData()
  form.append('csv', new File([content], name, { type: 'text/csv' }))
  return fetch(`${url}/admin/imports/upload`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { accept: 'application/json', ...headers },
  })
}

async function get(context: { url: string; admin: { cookie: string } }, path: string) {
  return fetch(`${context.url}${path}`, {
    headers: { accept: 'application/json', cookie: context.admin.cookie },
  })
}

async function progressOf(context: { url: string; admin: { cookie: string } }, id: number) {
  const res = await get(context, `/admin/imports/progress/${id}`)
  assert.is(res.status, 200)
  return (await res.json()) as Progress
}

/** Polls the import's progress until `done` holds, answering every distinct value seen. */
async function follow(
  context: { url: string; admin: { cookie: string } },
  id: number,
  done = (p: Progress) => p.status === 'completed' || p.status === 'failed',
): Promise<Progress[]> {
  const seen: Progress[] = []
  const deadline = Date.now() + 120_000
  for (;;) {
    const p = await progressOf(context, id)
    if (seen.at(-1)?.done !== p.done || seen.at(-1)?.status !== p.status) seen.push(p)
    if (done(p)) return seen
    if (Date.now() > deadline) throw new Error(`import ${id} still ${JSON.stringify(p)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The id of the import a 303 leads to. */
function importIdOf(res: Response): number {
  assert.is(res.status, 303)
  const location = res.headers.get('location') ?? ''
  assert.match(location, /^\/admin\/imports\/show\/\d+$/)
  return Number(location.split('/').pop())
}

async function count(app: PlaygroundApp, sql: string, bindings: unknown[] = []): Promise<number> {
  const [row] = await app.kernel.plugin('database').runStatement({ sql, bindings })
  return Number(row!.n)
}

test('an admin imports 10,000 lines in one job: products inserted, failed lines reported', async (context) => {
  const { app } = context
  const [taken] = await app.kernel
    .plugin('database')
    .runStatement({ sql: 'select sku from products where id = 1', bindings: [] })
  const bad = {
    10: ',BIG-10,1,1,true,,,',
    20: 'Lamp,BIG-20,abc,1,true,,,',
    30: 'Lamp,BIG-30,1,-3,true,,,',
    40: line('BIG', 1).replace('Product 1,', 'Again,'),
    50: 'Lamp,BIG-50,1,1,true,,,999',
    60: 'Lamp,BIG-60,1',
    70: `Lamp,${String(taken!.sku)},1,1,true,,,`,
    9999: '"Lamp, ""big""",BIG-9999,12.5,3,false,,a note,',
  }
  const before = await count(app, 'select count(*) as n from products')
  const res = await upload(context, context.admin, csv('BIG', 10_000, bad))
  const id = importIdOf(res)

  const seen = await follow(context, id)
  const last = seen.at(-1)!
  assert.is(last.status, 'completed')
  // Progress moved a batch at a time, each value out of the file's 10,000 product lines.
  const running = seen.filter((p) => p.status === 'running' && p.done > 0)
  assert.ok(running.length > 0, JSON.stringify(seen))
  for (const p of running) assert.is(p.total, 10_000)
  assert.equal(
    running.map((p) => p.done),
    [...running.map((p) => p.done)].sort((a, b) => a - b),
  )
  assert.equal([last.done, last.total, last.inserted, last.failed], [10_000, 10_000, 9_993, 7])
  assert.equal(last.failures, [
    { line: 11, column: 'name', message: 'The name field is required.' },
    { line: 21, column: 'price', message: 'The price must be number.' },
    { line: 31, column: 'stock', message: 'The stock must be >= 0.' },
    { line: 41, column: 'sku', message: 'The sku has already been taken.' },
    {
      line: 51,
      column: 'category_id',
      message: 'The category_id must be the id of a category, or null.',
    },
    { line: 61, column: '', message: 'The line has 3 fields; the header has 8.' },
    { line: 71, column: 'sku', message: 'The sku has already been taken.' },
  ])
  assert.is(await count(app, 'select count(*) as n from products'), before + 9_993)
  assert.is(await count(app, "select count(*) as n from products where sku like 'BIG-%'"), 9_993)
  const quoted = await app.kernel.plugin('database').runStatement({
    sql: "select name, price, stock, active, tags, notes, category_id from products where sku = 'BIG-9999'",
    bindings: [],
  })
  assert.equal(
    quoted.map((p) => ({ ...p, price: Number(p.price) })),
    [
      {
        name: 'Lamp, "big"',
        price: 12.5,
        stock: 3,
        active: false,
        tags: [],
        notes: 'a note',
        category_id: null,
      },
    ],
  )

  // The page shows the counts and the failed lines; the index lists the import.
  const page = await (await get(context, `/admin/imports/show/${id}`)).text()
  assert.match(page, '9993 products inserted, 7 lines failed.')
  assert.match(page, '<td>61</td><td></td><td>The line has 3 fields; the header has 8.</td>')
  const index = await (await get(context, '/admin/imports')).text()
  assert.match(
    index,
    `<a href="/admin/imports/show/${id}">${id}</a></td><td>products.csv</td><td>completed</td>`,
  )
})

test('a line is refused with the products API’s own message', async (context) => {
  const res = await fetch(`${context.url}/api/v1/products`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      apikey: 'demo-api-key',
    },
    body: JSON.stringify({ name: 'Lamp', sku: 'API-1', price: 'abc', stock: -3 }),
  })
  assert.is(res.status, 422)
  const { errors } = (await res.json()) as { errors: Record<string, string[]> }
  assert.equal(errors.price, ['The price must be number.'])
  assert.equal(errors.stock, ['The stock must be >= 0.'])
})

test('an import whose worker stopped midway resumes after its last batch, inserting no line twice', async (context) => {
  const jobs = context.app.kernel.plugin('jobs')
  const id = importIdOf(await upload(context, context.admin, csv('RESUME', 3_000)))
  const midway = await follow(context, id, (p) => p.done > 0 || p.status === 'completed')
  assert.is(midway.at(-1)!.status, 'running', 'stopped before the import ended')
  // The attempt is given up at once: it fails, and its retry waits for a worker.
  await jobs.stop(0)
  const stopped = await progressOf(context, id)
  assert.ok(stopped.done < 3_000, JSON.stringify(stopped))
  await jobs.work()
  const last = (await follow(context, id)).at(-1)!
  assert.equal([last.status, last.done, last.inserted, last.failed], ['completed', 3_000, 3_000, 0])
  assert.is(
    await count(context.app, "select count(*) as n from products where sku like 'RESUME-%'"),
    3_000,
  )
})

test('a file that is not valid CSV fails its import, saying why, and inserts nothing', async (context) => {
  const broken = csv('QUOTE', 20, { 12: '"Lamp,QUOTE-12,1,1,true,,,' })
  const id = importIdOf(await upload(context, context.admin, broken))
  const last = (await follow(context, id)).at(-1)!
  assert.is(last.status, 'failed')
  assert.match(last.error ?? '', /^The file is not valid CSV: Quote Not Closed/)
  assert.is(last.inserted, 0)
  assert.is(
    await count(context.app, "select count(*) as n from products where sku like 'QUOTE-%'"),
    0,
  )
})

test('refuses an empty, binary or header-less file with a 422 naming the problem', async (context) => {
  const imports = () => count(context.app, 'select count(*) as n from product_imports')
  const before = await imports()
  const refused = async (content: string | Buffer, name: string, message: string | RegExp) => {
    const res = await upload(context, context.admin, content, name)
    assert.is(res.status, 422, name)
    const body = (await res.json()) as { field: string; message: string }
    assert.is(body.field, 'csv', JSON.stringify(body))
    assert.match(body.message, message, JSON.stringify(body))
  }
  await refused('', 'empty.csv', 'The csv file is required.')
  await refused(PNG, 'image.csv', 'The file is image/png, not CSV.')
  await refused(PNG, 'image.png', /csv/)
  await refused(
    `${line('NOHEAD', 1)}\n${line('NOHEAD', 2)}\n`,
    'noheader.csv',
    /^The first line is not a header\. Unknown columns 'Product 1'/,
  )
  await refused('name,sku,price\n', 'short.csv', 'it lacks stock')
  await refused(`${HEADER}\n\n`, 'header-only.csv', 'The file has a header and no product line.')
  assert.is(await imports(), before)
})

test('refuses a user below the floor, a guest, and a session without its CSRF token', async (context) => {
  const imports = () => count(context.app, 'select count(*) as n from product_imports')
  const before = await imports()
  const user = await signIn(context.app.kernel, 'user')
  const content = csv('NOPE', 2)
  assert.is(
    (
      await upload(
        context,
        { cookie: `fw_session=${user.session}`, 'x-csrf-token': user.csrf },
        content,
      )
    ).status,
    403,
  )
  assert.is((await upload(context, {}, content)).status, 401)
  // The admin's cookie without `X-CSRF-Token` authenticates nothing that changes state.
  assert.is((await upload(context, { cookie: context.admin.cookie }, content)).status, 401)
  assert.is((await get(context, '/admin/imports/progress/1')).status, 200)
  const guest = await fetch(`${context.url}/admin/imports/progress/1`, {
    headers: { accept: 'application/json' },
  })
  assert.is(guest.status, 401)
  assert.is(await imports(), before)
})

test('an import id that is not one answers 404 on its page and its progress', async (context) => {
  for (const id of ['abc', '0x1', '1e0', '%201', '-1', '0', '999999999']) {
    for (const page of ['progress', 'show']) {
      const res = await get(context, `/admin/imports/${page}/${id}`)
      assert.is(res.status, 404, `${page}/${id}`)
      assert.equal(await res.json(), { error: 'not_found' }, `${page}/${id}`)
    }
  }
})

test('the imports page names the columns and offers the form', async (context) => {
  const res = await fetch(`${context.url}/admin/imports`, {
    headers: { accept: 'text/html', cookie: context.admin.cookie },
  })
  assert.is(res.status, 200)
  const page = await res.text()
  assert.match(page, 'id="import-form"')
  assert.match(page, '<code>name, sku, price, stock, active, tags, notes, category_id</code>')
  assert.not.match(page, 'Imports are off')
})

test.run()
