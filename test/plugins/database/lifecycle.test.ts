import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createTestDatabase,
  Migration,
  parseDatabaseUrl,
  type TestDatabase,
} from 'fw/plugins/database'
import { classNameOf } from '../../../plugins/database/deferred-entity.js'
import { DatabaseLifecycle, type LifecycleOptions } from '../../../plugins/database/lifecycle.js'
import { startTcpProxy, type TcpProxy } from '../../e2e/tcp-proxy.js'
import { Gadget, GadgetSchema, gadgetValues, migrations, onPostgres } from './fixtures.js'
import { closeAfterEach } from '../../fixtures/app-suite.js'

// The database plugin's lifecycle on its own, without a kernel: opening, the setup window,
// preparing, the migration snapshot, the start that finds no database and its background retries,
// and closing.

interface Lines {
  warn: string[]
  error: string[]
  info: string[]
}

interface Context {
  db?: TestDatabase
  life?: DatabaseLifecycle
  proxy?: TcpProxy
}

const test = suite<Context>('database lifecycle', {})

function lifecycle(
  context: Context,
  url: string,
  options: Partial<LifecycleOptions> = {},
): { life: DatabaseLifecycle; lines: Lines } {
  const lines: Lines = { warn: [], error: [], info: [] }
  const life = new DatabaseLifecycle({
    target: parseDatabaseUrl(url, process.cwd()),
    timeouts: { acquireMs: 1000, statementMs: 5000 },
    entities: [GadgetSchema],
    migrations,
    logger: {
      warn: (message) => void lines.warn.push(message),
      error: (message) => void lines.error.push(message),
      info: (message) => void lines.info.push(message),
    },
    ...options,
  })
  context.life = life
  return { life, lines }
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

closeAfterEach(test, 'life', 'proxy', 'db')

test('opens once, on demand: NOT_READY before, the same database after', async (context) => {
  const db = (context.db = await createTestDatabase())
  const { life } = lifecycle(context, db.url)
  assert.is(life.current, undefined)
  assert.throws(
    () => life.opened(),
    (e: Error & { code?: string }) => e.code === 'FW_ERR_DATABASE_NOT_READY',
  )
  const [a, b] = [life.open(), life.open()]
  assert.is(a, b)
  await a
  assert.is(life.opened(), life.current)
  assert.ok(life.opened().orm.getMetadata().find('Gadget'))
})

test('the setup window closes when opening starts', async (context) => {
  const db = (context.db = await createTestDatabase())
  const { life } = lifecycle(context, db.url, { entities: [] })
  life.addEntities([GadgetSchema])
  assert.equal(life.entities.map(classNameOf), ['Gadget'])
  const opening = life.open()
  for (const late of [
    () => life.addEntities([GadgetSchema]),
    () => life.addMigrations([]),
    () => life.addSeed(async () => false),
  ]) {
    assert.throws(late, (e: Error & { code?: string }) => e.code === 'FW_ERR_DATABASE_SETUP_CLOSED')
  }
  await opening
})

test('prepare migrates and runs every seed in order; status and the snapshot follow', async (context) => {
  const db = (context.db = await createTestDatabase())
  const order: string[] = []
  let connects = 0
  const { life } = lifecycle(context, db.url, {
    onConnected: () => void connects++,
    seed: async (em) => {
      order.push('first')
      if ((await em.count(Gadget)) > 0) return false
      em.create(Gadget, gadgetValues('Lamp'))
      await em.flush()
      return true
    },
  })
  life.addSeed(async () => {
    order.push('second')
    return false
  })
  assert.equal(life.migrations(), [])
  const first = await life.prepare()
  assert.equal(first, { migrated: ['Migration20261121000000_create_gadgets'], seeded: true })
  assert.equal(order, ['first', 'second'])
  const [state] = life.migrations()
  assert.is(state?.name, 'Migration20261121000000_create_gadgets')
  assert.match(String(state?.executed_at), /^\d{4}-\d\d-\d\dT/)
  const again = await life.prepare()
  assert.equal(again, { migrated: [], seeded: false })
  assert.equal(await life.status(), {
    executed: ['Migration20261121000000_create_gadgets'],
    pending: [],
  })
  assert.is(connects, 1, 'connecting is timed once')
  await life.check()
  assert.equal(life.availability(), { state: 'ready', error: undefined, attempts: 0 })
})

test('a broken migration fails prepareOrWait: waiting would not mend it', async (context) => {
  const db = (context.db = await createTestDatabase())
  const { life } = lifecycle(context, db.url, {
    migrations: [{ name: 'Migration20260101000000_broken', class: BrokenMigration }],
  })
  try {
    await life.prepareOrWait()
    assert.unreachable('prepareOrWait resolved')
  } catch (error) {
    assert.not.instance(error, assert.Assertion)
  }
  assert.is(life.availability().state, 'ready')
})

test('a start without its database waits, retries in the background, and stops when closed', async (context) => {
  const { life, lines } = lifecycle(context, 'postgresql://postgres@127.0.0.1:1/none')
  await life.prepareOrWait()
  assert.is(life.availability().state, 'waiting')
  assert.match(String(life.availability().error), /ECONNREFUSED/)
  assert.equal(lines.warn, ['database unreachable at start: serving without it, retrying'])
  await until(() => life.availability().attempts >= 3)
  // Outside a request the open database is there (the retries use it).
  assert.ok(life.opened())
  await life.close()
  assert.is(life.availability().state, 'closed')
  const attempts = life.availability().attempts
  await new Promise((resolve) => setTimeout(resolve, 700))
  assert.is(life.availability().attempts, attempts, 'no retry after close')
})

test('a request reaching for the database while it waits gets FW_ERR_DATABASE_UNAVAILABLE', async (context) => {
  let inRequest = false
  const { life } = lifecycle(context, 'postgresql://postgres@127.0.0.1:1/none', {
    inRequest: () => inRequest,
  })
  await life.prepareOrWait()
  inRequest = true
  assert.throws(
    () => life.opened(),
    (e: Error & { code?: string }) => e.code === 'FW_ERR_DATABASE_UNAVAILABLE',
  )
  inRequest = false
  assert.ok(life.opened())
})

if (onPostgres) {
  test('the background retries connect, migrate and seed once the database is back', async (context) => {
    const db = (context.db = await createTestDatabase())
    const direct = new URL(db.url)
    const proxy = (context.proxy = await startTcpProxy(
      { host: direct.hostname, port: Number(direct.port || 5432) },
      'refuse',
    ))
    direct.host = `127.0.0.1:${proxy.port}`
    let seeded = 0
    const { life, lines } = lifecycle(context, direct.toString(), {
      seed: async () => {
        seeded++
        return true
      },
    })
    await life.prepareOrWait()
    assert.is(life.availability().state, 'waiting')
    await proxy.set('pass')
    await until(() => life.availability().state === 'ready')
    assert.is(seeded, 1)
    assert.equal(await life.status(), {
      executed: ['Migration20261121000000_create_gadgets'],
      pending: [],
    })
    assert.equal(lines.info, ['database reachable again: migrated and seeded'])
  })
}

class BrokenMigration extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table "broken" ("id" no_such_type)')
  }
}

test.run()
