import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  IdleConnections,
  type Held,
  type PgClient,
} from '../../../plugins/database/read-pool-lists.js'

// The read pool's idle list on its own, with a short sweep: which connections it keeps for the next
// statement and which it gives back to pg's pool (whose idle timeout then closes them). On
// PostgreSQL the giving back is only seen after pg's 10 s idle timeout; here it is seen at once.

const test = suite('database read pool: idle connections')
const SWEEP_MS = 30
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done()` holds, checking every few ms; fails after 2 s (a slow machine's sweeps). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 2_000; !done(); await sleep(5))
    if (Date.now() > deadline) assert.unreachable(`${what} within 2 s`)
}

function connection(name: string): Held {
  const client = { name, query: () => undefined, on: () => undefined } as unknown as PgClient
  return { client, release: () => undefined, running: undefined, state: 'running', idleSince: 0 }
}

function idleList() {
  const givenBack: Held[] = []
  const idle = new IdleConnections(SWEEP_MS, (held) => {
    held.state = 'pooled'
    givenBack.push(held)
  })
  return { idle, givenBack }
}

test('the next statement takes the connection used last', () => {
  const { idle, givenBack } = idleList()
  const a = connection('a')
  const b = connection('b')
  idle.add(a)
  idle.add(b)
  assert.is(a.state, 'idle')
  assert.is(idle.take(), b)
  assert.is(idle.take(), a)
  assert.is(idle.take(), undefined)
  idle.close()
  assert.equal(givenBack, [])
})

test('a connection unused for a whole sweep goes back to the pool; one in use stays', async () => {
  const { idle, givenBack } = idleList()
  const unused = connection('unused')
  const busy = connection('busy')
  idle.add(unused)
  idle.add(busy)
  // A statement takes `busy` every half sweep, as a light load would: it is never idle a whole
  // sweep (two sweeps cannot both run between two of its takes: timers fire in order of their due
  // time, and the rearmed sweep is due a whole period after the one that ran).
  for (let i = 0; givenBack.length === 0; i++) {
    if (i === 200) assert.unreachable('the unused connection given back')
    await sleep(SWEEP_MS / 2)
    assert.is(idle.take(), busy)
    idle.add(busy)
  }
  assert.equal(givenBack, [unused])
  assert.is(unused.state, 'pooled')
  assert.is(busy.state, 'idle')
  // Once nothing takes it either, it follows; then the sweep stops (the list is empty).
  await until(() => givenBack.length === 2, 'the idle connection given back')
  assert.equal(givenBack, [unused, busy])
  assert.is(idle.take(), undefined)
  idle.close()
})

test('an idle connection removed (its server ended it) is not given back by the sweep', async () => {
  const { idle, givenBack } = idleList()
  const ended = connection('ended')
  const kept = connection('kept')
  idle.add(ended)
  idle.add(kept)
  idle.remove(ended)
  await until(() => givenBack.length > 0, 'the idle connection given back')
  await sleep(SWEEP_MS * 3)
  assert.equal(givenBack, [kept])
  idle.close()
})

test('closing gives every idle connection back, and any added after it at once', () => {
  const { idle, givenBack } = idleList()
  const a = connection('a')
  const b = connection('b')
  idle.add(a)
  idle.close()
  assert.equal(givenBack, [a])
  idle.add(b)
  assert.equal(givenBack, [a, b])
  assert.is(idle.take(), undefined)
})

test.run()
