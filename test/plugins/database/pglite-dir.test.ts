import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import database from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { Gadget, GadgetSchema, gadgetValues, migrations } from './fixtures.js'

// A pglite://<dir> database: a new directory starts from the cached, initialised template in
// node_modules/.cache/fw; an existing one opens as it is and keeps its rows.
const test = suite('pglite-dir')

async function open(dir: string) {
  const kernel = createTestKernel({
    plugins: [[database, { url: `pglite://${dir}`, entities: [GadgetSchema], migrations }]],
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  return kernel
}

test('creates new data directories from the template and reopens existing ones with their rows', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fw-pglite-'))
  try {
    for (const name of ['a', 'b']) {
      const dir = join(root, name)
      const first = await open(dir)
      const em = first.plugin('database').em()
      em.create(Gadget, gadgetValues(name))
      await em.flush()
      await first.close()
      assert.ok(existsSync(join(dir, 'PG_VERSION')))
      const again = await open(dir)
      assert.equal(
        (await again.plugin('database').em().find(Gadget, {})).map((g) => g.name),
        [name],
      )
      await again.close()
    }
    const cached = readdirSync(join('node_modules', '.cache', 'fw'))
    assert.ok(
      cached.some((f) => /^pglite-.+-template$/.test(f)),
      cached.join(', '),
    )
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('resolves a relative pglite://<dir> against the app root, not the working directory', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fw-pglite-root-'))
  try {
    assert.is.not(root, process.cwd())
    const kernel = createTestKernel({
      root,
      plugins: [[database, { url: 'pglite://var/data', entities: [GadgetSchema], migrations }]],
    })
    await kernel.boot()
    const { target } = kernel.plugin('database')
    assert.equal(target, { kind: 'pglite', dataDir: join(root, 'var', 'data') })
    await kernel.plugin('database').prepare()
    await kernel.close()
    assert.ok(existsSync(join(root, 'var', 'data', 'PG_VERSION')))
    assert.not.ok(existsSync(join(process.cwd(), 'var', 'data')))
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
