import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Deadlines, type Running } from '../../../plugins/database/statement-deadlines.js'

// The client-side statement timeout's bookkeeping on its own: the statements in flight, oldest
// first, one timer for all of them; a statement that ended before its time is never failed.

const test = suite('database statement deadlines')

interface Statement extends Running {
  readonly name: string
}

function statement(deadlines: Deadlines, name: string, failed: string[]): Statement {
  const running: Statement = {
    name,
    since: deadlines.now(),
    older: undefined,
    newer: undefined,
    end(error) {
      running.end = undefined
      deadlines.remove(running)
      failed.push(`${name}: ${error?.message}`)
    },
  }
  deadlines.add(running)
  return running
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error('condition not met in time')
    await sleep(10)
  }
}

test('fails the statements past the timeout, oldest first, and none that ended', async () => {
  const deadlines = new Deadlines(300)
  const failed: string[] = []
  const first = statement(deadlines, 'first', failed)
  const second = statement(deadlines, 'second', failed)
  statement(deadlines, 'third', failed)
  // The oldest and the middle one end in time: the list closes over them.
  deadlines.remove(second)
  deadlines.remove(first)
  await sleep(150)
  statement(deadlines, 'fourth', failed)
  await until(() => failed.length > 0)
  // The fourth is due 150 ms after the third: not failed with it.
  assert.equal(failed, ['third: Query read timeout'])
  await until(() => failed.length > 1)
  assert.equal(failed, ['third: Query read timeout', 'fourth: Query read timeout'])
  // Removing what has ended already changes nothing; the next statement gets the timer again.
  deadlines.remove(first)
  statement(deadlines, 'fifth', failed)
  await until(() => failed.length > 2)
  assert.equal(failed.at(-1), 'fifth: Query read timeout')
  deadlines.close()
})

test('with 0 ms, nothing is kept and nothing fails', async () => {
  const deadlines = new Deadlines(0)
  const failed: string[] = []
  const running = statement(deadlines, 'one', failed)
  assert.is(running.since, 0)
  assert.is(running.older, undefined)
  await sleep(20)
  deadlines.remove(running)
  assert.equal(failed, [])
})

test.run()
