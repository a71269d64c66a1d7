import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, type FwError } from 'fw'
import database, { createTestDatabase } from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { Gadget, GadgetSchema, gadgetValues, LegacyGadgetSchema, migrations } from './fixtures.js'

const test = suite('database-extend')

test('lets a dependent plugin add its entities, migrations and seed during setup', async () => {
  const db = await createTestDatabase()
  const gadgets = definePlugin({
    name: 'gadgets',
    dependsOn: ['database'],
    setup(kernel) {
      const api = kernel.plugin('database')
      api.addEntities(GadgetSchema)
      api.addMigrations(migrations)
      api.addSeed(async (em) => {
        if ((await em.count(Gadget)) > 0) return false
        em.create(Gadget, gadgetValues('Kettle', 30))
        await em.flush()
        return true
      })
    },
  })
  const kernel = createTestKernel({
    plugins: [[gadgets], [database, { url: db.url, entities: [] }]],
  })
  try {
    await kernel.boot()
    const api = kernel.plugin('database')
    assert.equal(await api.prepare(), { migrated: [migrations[0]!.name], seeded: true })
    assert.is((await api.em().findOneOrFail(Gadget, 1)).name, 'Kettle')
    assert.throws(() => api.addEntities(GadgetSchema), /called after the database started opening/)
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test("entities() names each entity's plugin, none for the app's own, once booted", async () => {
  // Set up after another plugin and before a third: the owner is found by its place in the boot
  // order, not as the first or last plugin set up.
  const gadgets = definePlugin({
    name: 'gadgets',
    dependsOn: ['database'],
    setup: (kernel) => kernel.plugin('database').addEntities(GadgetSchema),
  })
  const noop = (name: string) => definePlugin({ name, dependsOn: ['database'], setup: () => {} })
  const kernel = createTestKernel({
    plugins: [
      [noop('before')],
      [gadgets],
      [noop('after')],
      [database, { url: 'pglite://memory', entities: [LegacyGadgetSchema] }],
    ],
  })
  try {
    await kernel.boot()
    assert.equal(kernel.plugin('database').entities(), [
      { className: 'LegacyGadget', plugin: undefined },
      { className: 'Gadget', plugin: 'gadgets' },
    ])
  } finally {
    await kernel.close()
  }
})

test('refuses the ORM before it opens with a message that says how to open it', () => {
  const kernel = createTestKernel({
    plugins: [[database, { url: 'pglite://memory', entities: [] }]],
  })
  let caught: FwError | undefined
  const probe = definePlugin({
    name: 'probe',
    dependsOn: ['database'],
    setup(k) {
      try {
        void k.plugin('database').orm
      } catch (error) {
        caught = error as FwError
      }
    },
  })
  kernel.register(probe)
  return kernel.boot().then(async () => {
    assert.is(caught?.code, 'FW_ERR_DATABASE_NOT_READY')
    assert.match(String(caught?.message), "await kernel.plugin('database').ready()")
    await kernel.close()
  })
})

test.run()
