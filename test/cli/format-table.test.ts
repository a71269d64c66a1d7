// `fw/cli` exports the table printer of fw's own commands, for plugins' commands.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { formatTable } from 'fw/cli'

const test = suite('formatTable (fw/cli)')

test('aligns columns under a header and a rule, two spaces apart, trailing spaces trimmed', () => {
  const text = formatTable(
    ['Name', 'Visits', 'Last'],
    [
      ['ada', '12', 'today'],
      ['grace', '3', ''],
    ],
  )
  assert.is(
    text,
    ['Name   Visits  Last', '-----  ------  -----', 'ada    12      today', 'grace  3', ''].join(
      '\n',
    ),
  )
})

test('counts code points, and leaves the missing cells of a short row empty', () => {
  assert.is(formatTable(['A', 'B'], [['→', 'x'], ['é']]), 'A  B\n-  -\n→  x\né\n')
})

test('is typed: headers and rows are strings', () => {
  // Never called: the line is here for the compiler.
  // @ts-expect-error cells are strings
  const wrong = (): string => formatTable(['A'], [[1]])
  assert.type(wrong, 'function')
  const text: string = formatTable(['A'], [])
  assert.is(text, 'A\n-\n')
})

test.run()
