import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHook } from 'node:async_hooks'
import { FwError, html, view, type Kernel } from 'fw'
import { createTestKernel, eventsOf, expectEvent, type MemoryLogger } from 'fw/testing'
import views, { type ViewsOptions } from 'fw/plugins/views'

const test = suite('views')
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const admin = fileURLToPath(new URL('./fixtures/admin/', import.meta.url))

/** A kernel rooted in the fixtures (so the default lookup path is `fixtures/views`). */
function kernelWith(
  options: ViewsOptions = {},
  config: { development?: boolean } = {},
): Kernel & { logger: MemoryLogger } {
  const kernel = createTestKernel({ root: fixtures, config, plugins: [[views, options]] })
  kernel.router.get('products', () => view('products/index', { products: ['Tea', 'Cake'] }))
  kernel.router.get('about', () => view('about'))
  kernel.router.get('message', (ctx) =>
    view('message', { text: String(ctx.query.text ?? ''), markup: '<em>raw</em>' }),
  )
  kernel.router.get('broken', () => view('broken'))
  kernel.router.get('async', () => view('async', { load: async () => '<b>' }))
  kernel.router.get('missing', () => view('no/such/page'))
  kernel.router.get('missing-partial', () => view('missing-partial'))
  kernel.router.get('gone', () =>
    view('gone', {}, 404).header('cache-control', 'no-store').header('x-kept', 'yes'),
  )
  return kernel
}

test('renders a page inside its layout, with the layout including a partial', async () => {
  const res = await kernelWith().inject('/products')
  assert.is(res.status, 200)
  assert.match(String(res.headers['content-type']), /^text\/html/)
  assert.match(res.body, /^<!doctype html>/)
  assert.match(res.body, /<title>Products<\/title>/)
  assert.match(res.body, /<nav class="site">Home · Products<\/nav>/)
  assert.match(res.body, /<main>\s*<h1>Products<\/h1>/)
  assert.match(res.body, /<li>Tea<\/li>\s*<li>Cake<\/li>/)
})

test('escapes data in <%= %>', async () => {
  const res = await kernelWith().inject('/message?text=<script>alert(1)</script>')
  assert.match(res.body, /<p class="escaped">&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/p>/)
  assert.not.match(res.body, /<script>/)
})

test('writes data as it is with <%~ %>', async () => {
  const res = await kernelWith().inject('/message')
  assert.match(res.body, /<div class="raw"><em>raw<\/em><\/div>/)
})

test("uses the theme folder's template when the plugin has a theme", async () => {
  const res = await kernelWith({ theme: 'dark' }).inject('/products')
  assert.match(res.body, /<h1 class="dark">Products, after dark<\/h1>/)
  assert.match(res.body, /<nav class="dark">/, 'the partial is themed too')
})

test('falls back to the unthemed template when the theme does not override it', async () => {
  const res = await kernelWith({ theme: 'dark' }).inject('/about')
  assert.match(res.body, /<p>About us<\/p>/)
  assert.match(res.body, /<nav class="dark">/)
})

test("lets a request's ctx.state.theme override the plugin's theme", async () => {
  const kernel = kernelWith({ theme: 'none-such' })
  kernel.hooks.request.tapPromise('theme', async (ctx) => {
    if (ctx.query.theme === 'dark') ctx.state.theme = 'dark'
    return undefined
  })
  assert.match((await kernel.inject('/products?theme=dark')).body, /Products, after dark/)
  assert.match((await kernel.inject('/products')).body, /<h1>Products<\/h1>/)
})

test('searches a prepended path before the default one', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  kernel.plugin('views').prependPath(admin)
  const res = await kernel.inject('/products')
  assert.is(res.body.trim(), '<h1>Admin: products</h1>')
  assert.is(kernel.plugin('views').paths()[0], admin.replace(/\/$/, ''))
})

test('searches an appended path after the default one', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  kernel.plugin('views').appendPath(admin)
  assert.match((await kernel.inject('/products')).body, /<h1>Products<\/h1>/)
})

test('resolves a template name to the file the lookup would use', async () => {
  const kernel = kernelWith({ theme: 'dark' })
  await kernel.boot()
  const api = kernel.plugin('views')
  assert.is(api.resolve('products/index'), `${fixtures}views/themes/dark/products/index.eta`)
  assert.is(api.resolve('about'), `${fixtures}views/about.eta`)
  assert.is(api.resolve('no/such/page'), undefined)
  assert.is(api.resolve('../admin/products/index'), undefined, 'no name leaves the directories')
})

test('answers 500 for a missing template and logs FW_ERR_VIEW_NOT_FOUND with the paths searched', async () => {
  const kernel = kernelWith()
  const res = await kernel.inject('/missing')
  assert.is(res.status, 500)
  assert.not.match(res.body, /no\/such\/page/)
  assert.not.match(res.body, /FW_ERR_VIEW_NOT_FOUND/)
  const entry = kernel.logger.entries.find((e) => e.message === 'request failed')
  const error = entry?.context?.error
  assert.instance(error, FwError)
  assert.is((error as FwError).code, 'FW_ERR_VIEW_NOT_FOUND')
  assert.match((error as FwError).message, /Template 'no\/such\/page' was not found/)
  assert.match((error as FwError).message, /fixtures\/views\/no\/such\/page\.eta/)
  assert.is(expectEvent(res.events, 'exception.raised').code, 'FW_ERR_VIEW_NOT_FOUND')
})

test('shows why a template is missing in development mode', async () => {
  const res = await kernelWith({}, { development: true }).inject('/missing')
  assert.is(res.status, 500)
  assert.match(res.body, /Template &#39;no\/such\/page&#39; was not found/)
})

test('reports a missing partial by its own name', async () => {
  const kernel = kernelWith({}, { development: true })
  const res = await kernel.inject('/missing-partial')
  assert.is(res.status, 500)
  assert.is(expectEvent(res.events, 'exception.raised').code, 'FW_ERR_VIEW_NOT_FOUND')
  assert.match(expectEvent(res.events, 'exception.raised').message, /'partials\/nope'/)
})

test('answers 500 for a template that throws, with none of the page sent', async () => {
  const kernel = kernelWith()
  const res = await kernel.inject('/broken')
  assert.is(res.status, 500)
  assert.not.match(res.body, /This line renders/)
  const raised = expectEvent(res.events, 'exception.raised')
  assert.is(raised.code, 'FW_ERR_VIEW_RENDER_FAILED')
  assert.match(raised.message, /Template 'broken' .*broken\.eta\) failed to render/)
  assert.is(eventsOf(res.events, 'view.rendered').length, 0)
})

test('records a view.rendered event with the template, the file and the duration', async () => {
  const res = await kernelWith().inject('/products')
  const rendered = expectEvent(res.events, 'view.rendered')
  assert.is(rendered.template, 'products/index')
  assert.is(rendered.file, `${fixtures}views/products/index.eta`)
  assert.type(rendered.duration, 'number')
  assert.ok(rendered.duration >= 0)
})

test('keeps the status and headers of a view reply', async () => {
  const res = await kernelWith().inject('/gone')
  assert.is(res.status, 404)
  assert.is(res.headers['cache-control'], 'no-store')
  assert.is(res.headers['x-kept'], 'yes')
  assert.match(String(res.headers['content-type']), /^text\/html/)
  assert.match(res.body, /This page is gone/)
})

test('renders through its API without a request', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  const html = await kernel.plugin('views').render('message', { text: '<b>', markup: '' })
  assert.match(html, /&lt;b&gt;/)
})

test('awaits promises inside a template', async () => {
  const kernel = kernelWith()
  await kernel.boot()
  const html = await kernel.plugin('views').render('async', { load: async () => '<b>' })
  assert.is(html.trim(), '<p>&lt;b&gt;</p>')
})

test('a page that awaits renders through a route, the first time and after, also in development', async () => {
  for (const development of [false, true]) {
    const kernel = kernelWith({}, { development })
    for (let i = 0; i < 3; i++) {
      const res = await kernel.inject('/async')
      assert.is(res.status, 200, res.body)
      assert.is(res.body.trim(), '<p>&lt;b&gt;</p>')
      assert.is(eventsOf(res.events, 'view.rendered').length, 1)
    }
  }
})

test('a page that waits for nothing costs a request no promise more than an html() reply', async () => {
  const kernel = kernelWith()
  kernel.router.get('about-html', () => html('<p>About</p>'))
  let promises = 0
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises++
    },
  })
  const count = async (url: string): Promise<number> => {
    await kernel.inject(url)
    hook.enable()
    promises = 0
    for (let i = 0; i < 20; i++) assert.is((await kernel.inject(url)).status, 200)
    hook.disable()
    return promises
  }
  assert.is(await count('/about'), await count('/about-html'))
})

test('refuses a theme that is not a folder name', async () => {
  const kernel = kernelWith()
  kernel.hooks.request.tapPromise('theme', async (ctx) => {
    ctx.state.theme = '../admin'
    return undefined
  })
  const res = await kernel.inject('/products')
  assert.is(res.status, 500)
  assert.is(expectEvent(res.events, 'exception.raised').code, 'FW_ERR_VIEW_THEME_INVALID')
})

// The same edit with the cache off and on: read again, or the compiled template kept.
const CACHE_CASES = [
  {
    name: 'reads a changed template on the next render when the cache is off',
    cache: false,
    after: '<p>two</p>',
  },
  { name: 'keeps the compiled template when the cache is on', cache: true, after: '<p>one</p>' },
]

for (const { name, cache, after } of CACHE_CASES) {
  test(name, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-views-'))
    writeFileSync(join(dir, 'page.eta'), '<p>one</p>')
    const kernel = createTestKernel({ plugins: [[views, { paths: [dir], cache }]] })
    await kernel.boot()
    const api = kernel.plugin('views')
    assert.is(await api.render('page'), '<p>one</p>')
    writeFileSync(join(dir, 'page.eta'), '<p>two</p>')
    assert.is(await api.render('page'), after)
  })
}

test('uses the configured file extension', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-views-'))
  writeFileSync(join(dir, 'page.html'), '<p><%= it.n %></p>')
  const kernel = createTestKernel({ plugins: [[views, { paths: [dir], extension: 'html' }]] })
  await kernel.boot()
  assert.is(await kernel.plugin('views').render('page', { n: 1 }), '<p>1</p>')
})

test.run()
