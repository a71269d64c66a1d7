// `fw dev` as a real process: with NODE_ENV unset it runs in development, whatever the app's
// config says of it; under another NODE_ENV an app not in development mode is refused with advice
// that works; and the playground signs in with no FW_APP_KEY (the development key).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { copyPlayground, createTempPackage, runInCopy, until } from './dev-process.js'

const test = suite('fw dev: development mode by default')

/** An app whose config says nothing of development mode, telling whether it is in it. */
const APP = `import { createKernel } from 'fw'
export default ({ env, root } = {}) => {
  const kernel = createKernel({ root, env })
  kernel.router.get('mode', () => ({ development: kernel.isDevelopment() }))
  return kernel
}
`

test('serves an app in development mode with NODE_ENV unset', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  const running = await runInCopy(app, 'dev', { NODE_ENV: undefined })
  try {
    const res = await fetch(`${running.url}/mode`)
    assert.equal(await res.json(), { development: true })
  } finally {
    await running.stop()
    app.remove()
  }
})

test('under another NODE_ENV, refuses an app not in development mode, naming the fixes', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  try {
    await runInCopy(app, 'dev', { NODE_ENV: 'staging' }).then(
      async (running) => {
        await running.stop()
        assert.unreachable('fw dev served')
      },
      (error: Error) => {
        assert.match(error.message, 'exited with 1')
        assert.match(error.message, "NODE_ENV is 'staging'")
        assert.match(error.message, 'Unset NODE_ENV or set NODE_ENV=development')
        assert.not.match(error.message, 'Use fw serve')
      },
    )
  } finally {
    app.remove()
  }
})

test('the playground signs in with no FW_APP_KEY set', async () => {
  const copy = copyPlayground()
  const running = await runInCopy(copy, 'dev', { NODE_ENV: undefined, FW_APP_KEY: undefined })
  try {
    const page = await fetch(`${running.url}/login`)
    const html = await page.text()
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1]
    assert.ok(csrf, 'the form carries a token')
    const cookie = /fw_login_csrf=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0]
    // The embedded database opens after the socket: a 503 until it has (never a 403).
    const res = await until(
      async () => {
        const answer = await fetch(`${running.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie ?? '' },
          body: new URLSearchParams({ _csrf: csrf!, username: 'editor', password: 'editor-pass' }),
        })
        return answer.status === 503 ? undefined : answer
      },
      'POST /login answers once the database is open',
      120_000,
    )
    assert.is(res.status, 303, await res.text())
    assert.match(res.headers.get('set-cookie') ?? '', 'fw_session=')
  } finally {
    await running.stop()
    copy.remove()
  }
})

test.run()
