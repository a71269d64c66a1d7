import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { databaseSuite, oneTable } from './fixtures.js'
import { arrayLiteral } from '../../../plugins/database/array-literal.js'

// An array property (`type: 'string[]'`, a `text[]` column) holds exactly the strings it was
// given, whatever they spell: `null`, blanks, quotes, backslashes, braces, control characters.

class Note {
  id!: number
  tags: string[] = []
}

const notes = oneTable(Note, 'notes', { tags: ['string[]', 'text[] not null'] })

/** Every string MikroORM's own literal changed: an unquoted `null`, outer blanks, escapes. */
const AWKWARD = [
  'null',
  'NULL',
  '',
  ' padded ',
  'a"b',
  'back\\slash',
  'a,b',
  '{braces}',
  'line\nbreak',
  'tab\t"quoted"',
  '\u0001,',
  'é ü',
]

const literal = suite('database: arrayLiteral')

literal('quotes every element and escapes only quotes and backslashes', () => {
  assert.is(arrayLiteral([]), '{}')
  assert.is(arrayLiteral(['a', 'null', ' b ']), '{"a","null"," b "}')
  assert.is(arrayLiteral(['a"b', 'c\\d', 'e\nf']), '{"a\\"b","c\\\\d","e\nf"}')
  assert.is(arrayLiteral([1, null, undefined]), '{"1",NULL,NULL}')
})

literal.run()

const test = databaseSuite('database: array properties', notes)

test('writes and reads back every string exactly, through the ORM and through SQL', async ({
  kernel,
}) => {
  const db = kernel.plugin('database')
  const em = db.em()
  const note = em.create(Note, { tags: AWKWARD })
  await em.flush()
  const [row] = await db.sql<{ tags: string[] }>`select tags from notes where id = ${note.id}`
  assert.equal(row!.tags, AWKWARD)
  const found = await db.em().findOneOrFail(Note, note.id)
  assert.equal(found.tags, AWKWARD)
  const [nulls] = await db.sql<{ n: number }>`
    select count(*)::int as n from notes, unnest(tags) as t where t is null`
  assert.is(nulls!.n, 0)
})

test('a change is written the same way, and $contains matches the exact strings', async ({
  kernel,
}) => {
  const db = kernel.plugin('database')
  const em = db.em()
  const note = em.create(Note, { tags: ['plain'] })
  await em.flush()
  note.tags = ['null', ' x ']
  await em.flush()
  const [row] = await db.sql<{ tags: string[] }>`select tags from notes where id = ${note.id}`
  assert.equal(row!.tags, ['null', ' x '])
  const matches = await db.em().find(Note, { tags: { $contains: ['null', ' x '] } })
  assert.equal(
    matches.map((n) => n.id),
    [note.id],
  )
  assert.equal(await db.em().find(Note, { tags: { $contains: ['x'] } }), [])
})

test.run()
