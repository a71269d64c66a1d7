// writeFileAtomic(): the one way fw writes a file other processes read while it changes.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { writeFileAtomic } from 'fw'

const test = suite<{ dir: string }>('writeFileAtomic', { dir: '' })

test.before.each((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'fw-files-'))
})
test.after.each(({ dir }) => rmSync(dir, { recursive: true, force: true }))

test('makes the folder, writes, replaces, and leaves nothing beside the file', ({ dir }) => {
  const file = join(dir, 'var', 'cache', 'doc.json')
  writeFileAtomic(file, '{"v":1}')
  assert.is(readFileSync(file, 'utf8'), '{"v":1}')
  writeFileAtomic(file, new TextEncoder().encode('{"v":2}'))
  assert.is(readFileSync(file, 'utf8'), '{"v":2}')
  assert.equal(readdirSync(join(dir, 'var', 'cache')), ['doc.json'])
})

test('a write that cannot land throws and removes its partial file', ({ dir }) => {
  const taken = join(dir, 'taken')
  mkdirSync(join(taken, 'inside'), { recursive: true })
  assert.throws(() => writeFileAtomic(taken, 'x'))
  assert.equal(readdirSync(dir), ['taken'])
})

test.run()
