import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { verifyGrantToken } from 'fw/plugins/debug'
import { createTempApp, type TempApp } from '../../cli/temp-app.js'

const KEY = 'cli-debug-key-0123456789abcdef0123456789'
const test = suite<{ app: TempApp }>('debug: fw debug:token')

test.before((context) => {
  context.app = createTempApp({
    preamble: `import debug from ${JSON.stringify(import.meta.resolve('fw/plugins/debug'))}`,
    setup: `  kernel.register(debug)`,
  })
})
test.after(({ app }) => app.remove())

const run = (app: TempApp, args: string[], env: Record<string, string> = { FW_APP_KEY: KEY }) =>
  runCli(['debug:token', ...args], { env: { ...app.env, FW_APP_KEY: '', ...env } })

function tokenOf(stdout: string): { token: string; link: URL } {
  const line = stdout.split('\n').find((l) => l.includes('_debug='))!
  const link = new URL(line.trim())
  return { token: link.searchParams.get('_debug')!, link }
}

test('prints a link with ?_debug=<token> and the expiry; default 1 h', async ({ app }) => {
  const before = Math.floor(Date.now() / 1000)
  const { code, stdout } = await run(app, [])
  const after = Math.ceil(Date.now() / 1000)
  assert.is(code, 0, stdout)
  const { token, link } = tokenOf(stdout)
  assert.is(link.origin, 'http://127.0.0.1:3000')
  const expires = verifyGrantToken(token, KEY)!
  // An hour from when the command ran, however long it took to start.
  assert.ok(expires >= before + 3600 && expires <= after + 3600, `${before} ${expires} ${after}`)
  assert.match(stdout, /Expires: \d{4}-\d\d-\d\dT[\d:.]+Z \(in 1h\)/)
})

test('--ttl forms: 90, 90s, 30m, 2h; 1d is capped to 12h and says so', async ({ app }) => {
  const cases: [string, number][] = [
    ['90', 90],
    ['90s', 90],
    ['30m', 1800],
    ['2h', 7200],
    ['1d', 43200],
  ]
  const results = await Promise.all(cases.map(([ttl]) => run(app, [`--ttl=${ttl}`])))
  results.forEach((r, i) => {
    const [ttl, seconds] = cases[i]!
    assert.is(r.code, 0, `${ttl}: ${r.stderr}`)
    const expires = Number(tokenOf(r.stdout).token.split('.')[0])
    const now = Math.floor(Date.now() / 1000)
    assert.ok(Math.abs(expires - now - seconds) <= 30, `${ttl}: ${expires - now}`)
    if (ttl === '1d') assert.match(r.stdout, /capped to 12h/)
    else assert.not.match(r.stdout, /capped/)
  })
})

test('other --ttl forms exit 1 naming --ttl; no key exits 1', async ({ app }) => {
  const bad = await Promise.all(['abc', '1w', '-5', '2 h'].map((t) => run(app, [`--ttl=${t}`])))
  for (const r of bad) {
    assert.is(r.code, 1)
    assert.match(r.stderr, /--ttl/)
    assert.not.match(r.stdout, /_debug=/)
  }
  const nokey = await run(app, [], {})
  assert.is(nokey.code, 1)
  assert.match(nokey.stderr, /application key/)
})

test('--url sets the link base; debug_token_secret signs when set', async ({ app }) => {
  const r = await run(app, ['--url=https://shop.example/admin?x=1'])
  assert.is(r.code, 0, r.stderr)
  const { link } = tokenOf(r.stdout)
  assert.is(link.origin + link.pathname, 'https://shop.example/admin')
  assert.is(link.searchParams.get('x'), '1')
  const s = await run(app, [], { FW_APP_KEY: KEY, FW_CONFIG: '{"debug_token_secret":"other"}' })
  const { token } = tokenOf(s.stdout)
  assert.ok(verifyGrantToken(token, 'other'))
  assert.is(verifyGrantToken(token, KEY), undefined)
  const badUrl = await run(app, ['--url=notaurl'])
  assert.is(badUrl.code, 1)
  assert.match(badUrl.stderr, /--url/)
})

test.run()
