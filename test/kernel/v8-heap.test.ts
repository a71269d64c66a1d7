import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The first kernel turns off V8's allocation-site pretenuring (kernel/v8-heap.ts): objects made at a
// code site whose earlier objects all survived (a server's boot) are no longer born in the old
// generation. Measured in child processes, each with a fresh heap: the same allocation pattern
// fills the old generation without a kernel and leaves it alone with one.
const test = suite('v8 heap')

const child = fileURLToPath(new URL('./fixtures/pretenured-site.ts', import.meta.url))
const MB = 1024 * 1024

async function oldSpaceGrowth(
  mode: 'plain' | 'kernel',
  env: NodeJS.ProcessEnv = {},
): Promise<number> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', import.meta.resolve('tsx'), '-C', 'fw-source', child, mode],
    { env: { ...process.env, ...env } },
  )
  return (JSON.parse(stdout) as { grew: number }).grew
}

test('without a kernel, short-lived objects of a site tenured at boot are born old', async () => {
  assert.ok((await oldSpaceGrowth('plain')) > 5 * MB)
})

test('once a kernel is created, they are born young', async () => {
  assert.ok((await oldSpaceGrowth('kernel')) < 1 * MB)
})

test("FW_V8_PRETENURING=1 keeps V8's default", async () => {
  assert.ok((await oldSpaceGrowth('kernel', { FW_V8_PRETENURING: '1' })) > 5 * MB)
})

test.run()
