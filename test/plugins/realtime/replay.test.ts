// The replay buffers' bounds: events per channel, channels (least recently published forgotten
// first) and bytes over every channel; what a `Last-Event-ID` finds within them.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ReplayBuffers } from '../../../plugins/realtime/replay.js'

const test = suite('realtime replay buffers')

const frame = (id: string, size = 10) => ({ id, bytes: Buffer.alloc(size) })
const ids = (r: ReturnType<ReplayBuffers['after']>) =>
  r.found ? r.frames.map((f) => f.id) : 'reset'

test('keeps the last events of a channel and resumes after an id among them', () => {
  const replay = new ReplayBuffers({ events: 3, channels: 10, bytes: 1_000_000 })
  for (const id of ['a', 'b', 'c', 'd', 'e']) replay.add('news', frame(id))
  assert.equal(ids(replay.after('news', 'c')), ['d', 'e'])
  assert.equal(ids(replay.after('news', 'e')), [])
  // `b` was the newest dropped: a client that saw it missed only what is kept.
  assert.equal(ids(replay.after('news', 'b')), ['c', 'd', 'e'])
  assert.is(ids(replay.after('news', 'a')), 'reset')
  assert.is(ids(replay.after('other', 'c')), 'reset')
})

test('forgets the channel published to least recently past the channel bound', () => {
  const replay = new ReplayBuffers({ events: 10, channels: 2, bytes: 1_000_000 })
  replay.add('one', frame('1'))
  replay.add('two', frame('2'))
  replay.add('one', frame('3')) // `one` is now the most recent
  replay.add('three', frame('4'))
  assert.is(ids(replay.after('two', '2')), 'reset')
  assert.equal(ids(replay.after('one', '1')), ['3'])
  assert.equal(ids(replay.after('three', '4')), [])
})

test('holds at most the byte bound over every channel, the newest event always kept', () => {
  const replay = new ReplayBuffers({ events: 100, channels: 100, bytes: 250 })
  for (let i = 0; i < 20; i++) replay.add(`c${i % 4}`, frame(String(i), 100))
  assert.ok(replay.bytes <= 250, `${replay.bytes} bytes held`)
  assert.equal(ids(replay.after('c3', '19')), [])
  // One channel alone over the bound keeps its newest events only.
  const alone = new ReplayBuffers({ events: 100, channels: 100, bytes: 250 })
  for (let i = 0; i < 10; i++) alone.add('big', frame(String(i), 100))
  assert.is(alone.bytes, 200)
  assert.equal(ids(alone.after('big', '7')), ['8', '9'])
})

test('keeps nothing with replay_events 0, and forgets everything on clear()', () => {
  const none = new ReplayBuffers({ events: 0, channels: 10, bytes: 1000 })
  none.add('news', frame('a'))
  assert.is(ids(none.after('news', 'a')), 'reset')
  const some = new ReplayBuffers({ events: 5, channels: 10, bytes: 1000 })
  some.add('news', frame('a'))
  some.clear()
  assert.is(some.bytes, 0)
  assert.is(ids(some.after('news', 'a')), 'reset')
})

test.run()
