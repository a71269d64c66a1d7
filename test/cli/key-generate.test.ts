import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite('key:generate')
const KEY = /^base64:[A-Za-z0-9_-]{43}$/
let app: TempApp

test.before.each(() => {
  app = createTempApp()
})
test.after.each(() => app.remove())

function keyLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('FW_APP_KEY='))
}

test('writes FW_APP_KEY to a new .env in the app root, readable by its owner only', async () => {
  const { code, stdout } = await runCli(['key:generate'], { env: app.env })
  assert.is(code, 0)
  const file = join(app.root, '.env')
  const [line, ...rest] = keyLines(file)
  assert.is(rest.length, 0)
  assert.match(line!.slice('FW_APP_KEY='.length), KEY)
  assert.is(statSync(file).mode & 0o777, 0o600)
  assert.not.match(stdout, line!.slice('FW_APP_KEY='.length))
})

test('refuses to replace a key .env has, exit 1, naming --force and what it invalidates', async () => {
  const file = join(app.root, '.env')
  writeFileSync(file, 'BEFORE=1\nFW_APP_KEY=base64:old\nAFTER=2\n')
  const { code, stdout, stderr } = await runCli(['key:generate'], { env: app.env })
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(stderr.trim().split('\n').length, 1, stderr)
  assert.match(stderr, 'already has an FW_APP_KEY: kept')
  assert.match(stderr, 'fw key:generate --force')
  assert.match(stderr, 'everyone is signed out')
  assert.not.match(stderr, 'base64:old')
  assert.is(readFileSync(file, 'utf8'), 'BEFORE=1\nFW_APP_KEY=base64:old\nAFTER=2\n')
  // An empty assignment is no key: it is filled in.
  writeFileSync(file, 'FW_APP_KEY=\n')
  const empty = await runCli(['key:generate'], { env: app.env })
  assert.is(empty.code, 0, empty.stderr)
  assert.match(empty.stdout, 'Wrote FW_APP_KEY')
  assert.match(keyLines(file)[0]!.slice('FW_APP_KEY='.length), KEY)
})

test('replaces the key line with --force and keeps the other lines', async () => {
  const file = join(app.root, '.env')
  writeFileSync(file, 'BEFORE=1\nFW_APP_KEY=base64:old\nAFTER=2\n')
  const { code, stdout } = await runCli(['key:generate', '--force'], { env: app.env })
  assert.is(code, 0)
  const first = keyLines(file)
  await runCli(['key:generate', '--force'], { env: app.env })
  const second = keyLines(file)
  assert.is(first.length, 1)
  assert.is(second.length, 1)
  assert.is.not(first[0], second[0])
  assert.is.not(first[0], 'FW_APP_KEY=base64:old')
  assert.equal(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('FW_APP_KEY=')),
    ['BEFORE=1', 'AFTER=2', ''],
  )
  assert.match(stdout, 'Replaced')
  assert.match(stdout, 'no longer valid')
  assert.not.match(stdout, 'base64:old')
})

test('prints a new key with --show and writes nothing', async () => {
  const { code, stdout } = await runCli(['key:generate', '--show'], { env: app.env })
  assert.is(code, 0)
  assert.match(stdout.trim(), KEY)
  assert.not.ok(existsSync(join(app.root, '.env')))
})

test('never prints the key already in .env', async () => {
  writeFileSync(join(app.root, '.env'), 'FW_APP_KEY=base64:the-existing-secret\n')
  for (const args of [['key:generate'], ['key:generate', '--show']]) {
    const { stdout, stderr } = await runCli(args, { env: app.env })
    assert.not.match(stdout + stderr, 'the-existing-secret')
  }
})

test.run()
