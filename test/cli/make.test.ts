// `fw make:*`: each generator writes into the layout of `fw new`, prints what it wrote, normalises
// the name, refuses a bad one, never overwrites without --force; the app with every generated
// file type-checks and passes its own tests plus one that uses what was generated.
import { readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { formatProblems, typeCheck } from '../docs/examples.js'
import { runCommands } from '../fixtures/fw-commands.js'
import { fwIn, newApp, runAppTests, workFolder } from './new-app.js'

const test = suite<{ dir: string }>('fw make:*', { dir: '' })

test.before(async (context) => {
  context.dir = await newApp(workFolder(), 'shop')
})

test('each generator writes its files, named from the name given in any spelling', async ({
  dir,
}) => {
  const expect = async (args: string[], written: RegExp[]): Promise<void> => {
    const { code, stdout, stderr } = await fwIn(dir, args)
    assert.is(code, 0, stderr)
    for (const line of written) assert.match(stdout, line, args.join(' '))
  }
  await expect(['make:controller', 'NotesController'], [/^created controllers\/notes\.ts$/m])
  await expect(
    ['make:entity', 'BlogPost'],
    [
      /^created entities\/blog-post\.ts$/m,
      /^created migrations\/Migration\d{14}_create_blog_posts\.ts$/m,
    ],
  )
  await expect(
    ['make:migration', 'AddBodyToBlogPosts'],
    [/^created migrations\/Migration\d{14}_add_body_to_blog_posts\.ts$/m],
  )
  await expect(['make:test', 'blog_posts'], [/^created test\/blog-posts\.test\.ts$/m])
  await expect(['make:plugin', 'audit-trail'], [/^created plugins\/audit-trail\.ts$/m])
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8')
  assert.match(read('controllers/notes.ts'), 'export default class NotesController')
  assert.match(read('controllers/notes.ts'), "@controller({ prefix: 'notes', name: 'notes.' })")
  assert.match(read('entities/blog-post.ts'), "tableName: 'blog_posts'")
  assert.match(read('plugins/audit-trail.ts'), "name: 'audit-trail'")
})

test('migration names sort after the auth plugin’s, and in the order they were made', ({ dir }) => {
  const names = readdirSync(join(dir, 'migrations')).filter((f) => f.startsWith('Migration'))
  assert.is(names.length, 2)
  const [create, add] = [
    names.find((n) => n.includes('create_blog_posts'))!,
    names.find((n) => n.includes('add_body'))!,
  ]
  // Made one after the other, within a second or not: the later sorts last.
  assert.ok(create < add, `${create} < ${add}`)
  assert.ok('Migration20261121130000_create_auth_tables' < create)
  const text = readFileSync(join(dir, 'migrations', add), 'utf8')
  assert.match(text, `name: '${add.replace(/\.ts$/, '')}'`)
})

test('never overwrites a file (exit 1, nothing written) unless --force', async ({ dir }) => {
  const file = join(dir, 'controllers', 'notes.ts')
  writeFileSync(file, '// mine\n')
  const refused = await fwIn(dir, ['make:controller', 'notes'])
  assert.is(refused.code, 1)
  assert.match(
    refused.stderr,
    'controllers/notes.ts exists: not overwritten (--force replaces it).',
  )
  assert.is(refused.stdout, '')
  assert.is(readFileSync(file, 'utf8'), '// mine\n')
  const forced = await fwIn(dir, ['make:controller', 'notes', '--force'])
  assert.is(forced.code, 0, forced.stderr)
  assert.match(forced.stdout, 'replaced controllers/notes.ts')
  assert.match(readFileSync(file, 'utf8'), 'NotesController')
})

test('refuses an entity name a plugin has, naming the plugin, writing nothing', async ({ dir }) => {
  const listed = (folder: string): string[] => readdirSync(join(dir, folder)).sort()
  const before = { entities: listed('entities'), migrations: listed('migrations') }
  // The auth plugin declares User: `fw migrate` would fail on two entities of one name.
  for (const name of ['User', 'user']) {
    const refused = await fwIn(dir, ['make:entity', name])
    assert.is(refused.code, 1, name)
    assert.is(refused.stdout, '', name)
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr)
    assert.match(refused.stderr, 'fw: The auth plugin already has an entity named User', name)
    assert.equal({ entities: listed('entities'), migrations: listed('migrations') }, before, name)
  }
})

test('checks entity names from the last boot, and boots again once a source changed', async ({
  dir,
}) => {
  const file = join(dir, 'var', 'cache', 'fw-commands.json')
  type Recorded = { stamp: number; entities: { className: string; plugin: string }[] }
  const recorded = (): Recorded => JSON.parse(readFileSync(file, 'utf8')) as Recorded
  const before = Date.now()
  const made = await fwIn(dir, ['make:entity', 'Tag'])
  assert.is(made.code, 0, made.stderr)
  // The record lists the auth plugin's entity and stays fresh after the generator's new files.
  assert.ok(recorded().entities.some((e) => e.className === 'User' && e.plugin === 'auth'))
  assert.ok(recorded().stamp >= before, 'restamped after writing')
  // A name only the record knows is refused: the app was not booted to check it.
  const withInvoice = recorded()
  withInvoice.entities.push({ className: 'Invoice', plugin: 'billing' })
  writeFileSync(file, JSON.stringify(withInvoice))
  const refused = await fwIn(dir, ['make:entity', 'Invoice'])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, 'The billing plugin already has an entity named Invoice')
  // A source saved since: the app boots, the record is written anew, and Invoice is free.
  const tag = join(dir, 'entities', 'tag.ts')
  const later = new Date(Date.now() + 2000)
  utimesSync(tag, later, later)
  const accepted = await fwIn(dir, ['make:entity', 'Invoice'])
  assert.is(accepted.code, 0, accepted.stderr)
  assert.match(accepted.stdout, /^created entities\/invoice\.ts$/m)
  assert.not.ok(recorded().entities.some((e) => e.className === 'Invoice'))
})

test('refuses names it cannot use, saying what a name may hold', async ({ dir }) => {
  const bad = [
    ['make:controller', 'bad name'],
    ['make:entity', '1st'],
    ['make:migration', 'drop;table'],
    ['make:test', '../escape'],
    ['make:plugin', 'a--b'],
  ] as const
  // What each answers, not how a process starts (each command's own process is tested above).
  const results = await runCommands([...bad, ['make:plugin', 'auth']], {
    cwd: dir,
    env: { FW_APP: '' },
  })
  for (const [i, [command, name]] of bad.entries()) {
    const { code, stderr } = results[i]!
    assert.is(code, 1, `${command} ${name}`)
    assert.match(stderr, `'${name}' is not a usable`)
  }
  const taken = results[bad.length]!
  assert.is(taken.code, 1)
  assert.match(taken.stderr, "'auth' is the name of an fw plugin")
})

test('the app with everything generated type-checks and passes its tests', async ({ dir }) => {
  writeFileSync(
    join(dir, 'test', 'generated.test.ts'),
    `import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTestApp } from 'fw/testing'
import createApp from '../app.js'
import { BlogPost } from '../entities/blog-post.js'

test('the generated controller, plugin, entity and migrations', async () => {
  const kernel = await createTestApp(createApp)
  try {
    const notes = await kernel.inject('/notes?page=2')
    assert.deepEqual(notes.json(), { controller: 'notes', action: 'index', query: { page: '2' } })
    assert.deepEqual((await kernel.inject('/audit-trail')).json(), { plugin: 'audit-trail' })
    const em = kernel.plugin('database').em()
    const post = Object.assign(new BlogPost(), { name: 'first' })
    await em.persist(post).flush()
    assert.ok(post.id > 0)
  } finally {
    await kernel.close()
  }
})
`,
  )
  const problems = typeCheck(dir)
  assert.equal(problems, [], formatProblems(problems))
  const files = readdirSync(join(dir, 'test')).map((f) => join('test', f))
  const run = await runAppTests(dir, files)
  assert.is(run.code, 0, run.stdout + run.stderr)
  assert.match(run.stdout, /# pass 6\n/)
})

test.run()
