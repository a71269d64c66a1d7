import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import database from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import {
  EMBEDDED_SHARED_BUFFERS,
  withEmbeddedBufferPool,
} from '../../../plugins/database/pglite-wasm.js'

// Every embedded database fw opens runs PGlite's binary with a 16 MB buffer pool (PGlite fixes
// 128 MB, which its start writes in full): in memory and in a directory, in the worker thread and
// in the main thread. On whatever database the suite runs, these open PGlite themselves.
const test = suite('pglite-wasm')

async function sharedBuffers(url: string, pglite_worker: boolean): Promise<string> {
  const kernel = createTestKernel({
    config: { database: { pglite_worker } },
    plugins: [[database, { url, entities: [] }]],
  })
  try {
    await kernel.boot()
    await kernel.plugin('database').ready()
    const rows = await kernel.plugin('database').sql<{
      shared_buffers: string
    }>`show shared_buffers`
    return rows[0]!.shared_buffers
  } finally {
    await kernel.close()
  }
}

test('an embedded database starts with the smaller buffer pool, in memory and on disk, in either thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-pglite-wasm-'))
  try {
    assert.is(EMBEDDED_SHARED_BUFFERS, '16MB')
    for (const worker of [true, false]) {
      assert.is(await sharedBuffers('pglite://memory', worker), '16MB', `memory, worker ${worker}`)
      assert.is(
        await sharedBuffers(`pglite://${dir}`, worker),
        '16MB',
        `directory, worker ${worker}`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the setting is replaced only where the binary holds it exactly once', () => {
  const shipped = 'shared_buffers=128MB\0'
  const once = withEmbeddedBufferPool(Buffer.from(`abc${shipped}xyz`))
  assert.is(once.toString('latin1'), 'abcshared_buffers=16MB\0\0xyz')
  const twice = `${shipped}-${shipped}`
  assert.is(withEmbeddedBufferPool(Buffer.from(twice)).toString('latin1'), twice)
  assert.is(withEmbeddedBufferPool(Buffer.from('no setting')).toString('latin1'), 'no setting')
})

test.run()
