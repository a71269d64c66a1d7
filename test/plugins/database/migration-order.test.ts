import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { defineMigration } from 'fw/plugins/database'
import { APP_PLACE, orderedMigrations } from '../../../plugins/database/migration-order.js'

const named = (...names: string[]) =>
  names.map((name) => defineMigration({ name, up: ['select 1'] }))

test('plugins in setup order, the app last, then by timestamp whatever the prefix', async () => {
  const order = await orderedMigrations([
    { migrations: named('20260101000000_app_first', 'zeta_without_timestamp'), place: APP_PLACE },
    { migrations: async () => named('Migration20261121130000_auth'), place: 1 },
    {
      migrations: named('Migration20260103000000_app_c', '20260102000000_app_b'),
      place: APP_PLACE,
    },
    { migrations: named('20270101000000_base'), place: 0 },
  ])
  assert.equal(
    order.map((m) => m.name),
    [
      '20270101000000_base',
      'Migration20261121130000_auth',
      '20260101000000_app_first',
      '20260102000000_app_b',
      'Migration20260103000000_app_c',
      'zeta_without_timestamp',
    ],
  )
})

test.run()
