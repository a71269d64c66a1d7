// The shared maintenance state is read when the app starts listening, also when the database
// plugin does not prepare on listen (`prepareOnListen: false`) and nothing opened the database yet.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestKernel } from 'fw/testing'
import database, { createTestDatabase } from 'fw/plugins/database'

const test = suite('shared maintenance without prepare on listen')

test('listening reads the shared state without a warning', async () => {
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [[database, { url: db.url, entities: [], prepareOnListen: false }]],
  })
  try {
    await kernel.boot()
    await kernel.listen(0, '127.0.0.1')
    // The read runs in the background once listening.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const warnings = kernel.logger.entries.filter((e) => e.level === 'warn')
    assert.equal(
      warnings.map((e) => e.message),
      [],
    )
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test.run()
