// The uploads plugin's libraries are optional peer dependencies: in a process where
// @fastify/busboy and file-type are not installed, an app with the plugin boots and answers, and
// an upload fails with FW_ERR_PACKAGE_MISSING naming the package to install.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runWithoutPackages } from '../../kernel/fixtures/without-packages.js'

const test = suite('upload optional libraries')

async function runWithout(absent: string): Promise<{
  plain: number
  upload: { code?: string; message?: string; read?: boolean }
}> {
  const stdout = await runWithoutPackages(new URL('fixture/absent-libraries.ts', import.meta.url), [
    absent,
  ])
  return JSON.parse(stdout) as never
}

for (const name of ['@fastify/busboy', 'file-type']) {
  test(`without ${name}, an app boots and an upload names the package to install`, async () => {
    const { plain, upload } = await runWithout(name)
    assert.is(plain, 200)
    assert.is(upload.code, 'FW_ERR_PACKAGE_MISSING')
    assert.match(upload.message ?? '', name)
  })
}

test('with both installed, the same upload is read', async () => {
  const { upload } = await runWithout('')
  assert.equal(upload, { read: true })
})

test.run()
