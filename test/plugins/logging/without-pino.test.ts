import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// pino is an optional peer dependency of fw: an app that registers the logging plugin without
// having installed it fails at boot with FW_ERR_PACKAGE_MISSING and the install line, not at the
// first line it logs. The package is made absent in a child process, as for an app that lacks it.
const APP = `
import { createKernel, messageOf } from 'fw'
import logging from 'fw/plugins/logging'
const kernel = createKernel({ config: { app: { name: 'no-pino' } } })
try {
  kernel.register(logging, {})
  await kernel.boot()
  console.log(JSON.stringify({ booted: true }))
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: messageOf(error) }))
}
`

test('registering the logging plugin without pino fails at boot, naming the install line', async () => {
  const absent = new URL('../../kernel/fixtures/absent-packages.mjs', import.meta.url)
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      '-C',
      'fw-source',
      '--import',
      fileURLToPath(absent),
      '--input-type=module',
      '-e',
      APP,
    ],
    { env: { ...process.env, FW_ABSENT_PACKAGES: 'pino' }, timeout: 60_000 },
  )
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    code?: string
    message?: string
  }
  assert.is(outcome.code, 'FW_ERR_PACKAGE_MISSING', stdout)
  assert.match(String(outcome.message), "npm install pino@'^10")
  assert.match(String(outcome.message), 'the logging plugin')
})

test.run()
