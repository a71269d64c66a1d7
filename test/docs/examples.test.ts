import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  checkExample,
  collectExamples,
  formatProblems,
  repoRoot,
  runExample,
  typeCheck,
  writeExample,
  type Example,
} from './examples.js'

const test = suite('docs examples')

/** The documents whose `example=` blocks must be true, relative to the repository root. */
function documents(): string[] {
  const inFolder = (folder: string, pick: (name: string) => boolean) =>
    readdirSync(join(repoRoot, folder))
      .filter(pick)
      .map((name) => join(folder, name))
  return [
    'README.md',
    ...inFolder('docs', (n) => n.endsWith('.md')),
    ...readdirSync(join(repoRoot, 'plugins'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join('plugins', d.name, 'README.md'))
      .filter((p) => readdirSync(join(repoRoot, p, '..')).includes('README.md')),
    'playground/README.md',
  ].sort()
}

const examples: Example[] = documents().flatMap((doc) => {
  let markdown: string
  try {
    markdown = readFileSync(join(repoRoot, doc), 'utf8')
  } catch {
    return [] // playground/README.md may not exist on an old checkout: nothing to check then
  }
  return collectExamples(markdown, doc)
})

// One temporary root for the whole suite, one folder per example under it.
const root = mkdtempSync(join(tmpdir(), 'fw-doc-examples-'))
test.after(() => rmSync(root, { recursive: true, force: true }))
let folders = 0
const folderFor = (name: string) => join(root, `${folders++}-${name.replace(/[^\w-]/g, '_')}`)

const fixture = (files: Record<string, string>) =>
  Object.entries(files)
    .map(([path, body]) => `\`\`\`ts example=fixture file=${path}\n${body}\n\`\`\`\n`)
    .join('\nSome prose.\n\n')

test('collects the blocks of each example by name, with their files and the run flag', () => {
  const markdown = [
    '```ts example=a file=src/index.ts',
    'export const a = 1',
    '```',
    '',
    '````md',
    '```ts example=ignored file=x.ts',
    '```',
    '````',
    '',
    '```json example=a file=package.json',
    '{ "name": "a", "type": "module" }',
    '```',
    '',
    '```ts example=b file=main.ts run',
    "console.log('b')",
    '```',
    '',
    '```ts',
    'const notAnExample = true',
    '```',
  ].join('\n')
  const found = collectExamples(markdown, 'doc.md')
  assert.equal(
    found.map((e) => [e.name, e.files.map((f) => [f.path, f.line, f.run])]),
    [
      [
        'a',
        [
          ['src/index.ts', 1, false],
          ['package.json', 10, false],
        ],
      ],
      ['b', [['main.ts', 14, true]]],
    ],
  )
  assert.is(found[0]!.files[0]!.content, 'export const a = 1\n')
})

test('refuses an example block without a file, or with a path outside the package', () => {
  assert.throws(
    () => collectExamples('```ts example=a\nx\n```\n', 'doc.md'),
    /doc\.md:1: .*needs `file=<relative path>`/,
  )
  assert.throws(
    () => collectExamples('```ts example=a file=../x.ts\nx\n```\n', 'doc.md'),
    /inside the package/,
  )
})

test('reports a type error in a broken example, naming its file and line', () => {
  const [broken] = collectExamples(
    fixture({
      'src/index.ts': "import { definePlugin } from 'fw'\n\nexport const n: number = 'three'",
      'src/plugin.ts':
        "import { definePlugin } from 'fw'\nexport const p = definePlugin({ setup() {} })",
    }),
    'broken.md',
  )
  const problems = typeCheck(writeExample(broken!, folderFor('broken')))
  const text = formatProblems(problems)
  assert.match(text, /src\/index\.ts:3: Type 'string' is not assignable to type 'number'/)
  assert.match(text, /src\/plugin\.ts:2: [^]*Property 'name' is missing/)
})

test('fails an example whose run file exits with an error', async () => {
  const [failing] = collectExamples(
    '```ts example=exits file=main.ts run\nprocess.exitCode = 3\n```\n',
    'failing.md',
  )
  const dir = writeExample(failing!, folderFor('exits'))
  assert.equal(typeCheck(dir), [])
  const result = await runExample(failing!, dir)
  assert.is(result?.code, 3)
})

test('the plugin guide holds a complete example package with tests', () => {
  const guide = examples.filter((e) => e.source === join('docs', 'writing-a-plugin.md'))
  assert.ok(guide.length > 0, 'docs/writing-a-plugin.md marks no example= blocks')
  assert.ok(
    guide.some((e) => e.files.some((f) => f.path === 'package.json')) &&
      guide.some((e) => e.files.some((f) => /^test\/.*\.test\.ts$/.test(f.path))),
    'the guide has no example with a package.json and a test',
  )
})

for (const example of examples) {
  test(`${example.source}: example '${example.name}' type-checks and runs`, async () => {
    const { dir, result } = await checkExample(example, folderFor(example.name))
    if (result !== undefined) {
      assert.ok(
        result.code === 0,
        `${example.source}, example '${example.name}': \`${result.command}\` in ${dir} exited ${result.code}:\n${result.output}`,
      )
      if (result.command.includes('uvu'))
        assert.match(result.output, /Passed:\s+[1-9]/, `no test of example '${example.name}' ran`)
    }
  })
}

test.run()
