import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Kernel } from 'fw'
import { runCli as run, type CliResult } from 'fw/testing'
import type { TempApp } from '../../cli/temp-app.js'
import { tempAppDatabase, type TempAppDatabase } from '../../cli/temp-app-database.js'
import { runCommands } from '../../fixtures/fw-commands.js'

/** The CLI with room for a loaded machine (PGlite's start alone can take seconds there). */
const runCli = (args: readonly string[], options: { env: NodeJS.ProcessEnv; input?: string }) =>
  run(args, { ...options, timeoutMs: 180_000 })

// `fw user:*` on an app of the database and auth plugins, against a database of this suite's own
// (a PGlite directory, or a fresh PostgreSQL database), then a login through the same app module,
// booted in this process once the CLI has exited. The tests run in order, on what the one before
// left.
const test = suite<TempAppDatabase>('auth user commands')
const APP_KEY = 'base64:user-commands-suite-application-key-0123456789'

tempAppDatabase(
  test,
  'fw-user-commands-',
  {
    preamble: `import database from ${JSON.stringify(import.meta.resolve('fw/plugins/database'))}
import auth from ${JSON.stringify(import.meta.resolve('fw/plugins/auth'))}`,
    setup: `  kernel.register(database, {}).register(auth)`,
  },
  { FW_APP_KEY: APP_KEY },
)

/** Signs in through the app (`POST /account/login`), booted here on the suite's database. */
async function login(
  context: { app: TempApp; env: NodeJS.ProcessEnv },
  password: string,
): Promise<{ status: number; token?: string; kernel: Kernel }> {
  const { default: factory } = (await import(context.app.module)) as {
    default: (options: { env: NodeJS.ProcessEnv }) => Kernel
  }
  const kernel = factory({ env: context.env })
  const res = await kernel.inject({
    method: 'POST',
    url: '/account/login',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'ann', password }),
  })
  const body = res.json() as { access_token?: string }
  return { status: res.status, ...(body.access_token && { token: body.access_token }), kernel }
}

test('user:create names its option values and reads without stray spaces in help and usage errors', async ({
  env,
}) => {
  const [help, missing] = await runCommands([['user:create', '--help'], ['user:create']], { env })
  assert.is(help!.code, 0, help!.stderr)
  assert.match(help!.stdout, '--email <email>')
  assert.match(help!.stdout, '--usertype <usertype>')
  assert.not.match(help!.stdout, '#0')
  const details = help!.stdout.split('Details')[1]!.split('Examples')[0]!
  assert.not.match(details, /\S {2,}\S/, 'no run of spaces inside a line of the details')
  assert.match(details.replace(/\s+/g, ' '), 'fewer than 8 characters is refused')
  assert.is(missing!.code, 1)
  assert.match(
    missing!.stderr,
    'Usage: fw user:create [--email <email>] [--usertype <usertype>] [--password-stdin] <username>.',
  )
  assert.not.match(missing!.stderr, '#0')
})

test('user:create refuses before the database is migrated', async ({ env }) => {
  const [refused, migrated] = await runCommands(
    [{ args: ['user:create', 'ann', '--password-stdin'], input: 'x' }, ['migrate']],
    { env },
  )
  assert.is(refused!.code, 1)
  // PGlite: no directory yet; PostgreSQL: the suite's database, empty.
  assert.match(
    refused!.stderr,
    /^fw: (The database .* does not exist|1 migration\(s\) have not run)/,
  )
  assert.is(migrated!.code, 0, migrated!.stderr)
})

test('user:create reads the password from stdin; the user then signs in through the app', async (context) => {
  const { env } = context
  const { code, stdout, stderr } = await runCli(
    ['user:create', 'ann', '--email', 'ann@example.test', '--usertype', '2', '--password-stdin'],
    { env, input: 'correct horse battery\n' },
  )
  assert.is(code, 0, stderr)
  assert.match(stdout, 'Created user ann (id 1, usertype 2).')
  const { status, token, kernel } = await login(context, 'correct horse battery')
  await kernel.close()
  assert.is(status, 200)
  assert.type(token, 'string')
})

test('user:create refuses a taken username, an empty password, a password without a source, and a usertype out of range', async ({
  env,
}) => {
  const [taken, empty, short, noTerminal, usertype, list] = (await runCommands(
    [
      { args: ['user:create', 'ANN', '--password-stdin'], input: 'pw' },
      { args: ['user:create', 'bob', '--password-stdin'], input: '\n' },
      // Seven characters (one of them outside the BMP, counted once).
      { args: ['user:create', 'bob', '--password-stdin'], input: 'abcdeé😀\n' },
      ['user:create', 'bob'],
      ['user:create', 'bob', '--usertype=-1'],
      ['user:list', '--json'],
    ],
    { env },
  )) as [CliResult, CliResult, CliResult, CliResult, CliResult, CliResult]
  assert.is(short.code, 1)
  assert.is(short.stdout, '')
  assert.match(
    short.stderr,
    'fw: the password has 7 characters: use at least 8; nothing was changed.',
  )
  assert.not.match(list.stdout, 'bob')
  assert.is(taken.code, 1)
  assert.match(taken.stderr, "fw: a user named 'ANN' already exists.")
  assert.is(empty.code, 1)
  assert.match(empty.stderr, 'the password is empty')
  assert.is(noTerminal.code, 1)
  assert.match(noTerminal.stderr, 'pipe it in with --password-stdin')
  assert.is(usertype.code, 1)
  assert.match(
    usertype.stderr,
    "fw: --usertype must be a whole number from 0 to 2147483647, got '-1'.",
  )
})

test('user:list prints the users without password hashes', async ({ env }) => {
  const { code, stdout, stderr } = await runCli(['user:list'], { env })
  assert.is(code, 0, stderr)
  assert.match(stdout, /^Id\s+Username\s+Email\s+Usertype\s+2FA\s+Created$/m)
  assert.match(stdout, /^1\s+ann\s+ann@example\.test\s+2\s+no\s+\d{4}-/m)
  assert.not.match(stdout, 'scrypt')
  assert.not.match(stdout, 'bob')
})

test('user:password refuses a short password, replaces it and revokes the tokens; an unknown user is refused', async (context) => {
  const { env } = context
  const before = await login(context, 'correct horse battery')
  await before.kernel.close()
  const [short, replaced, unknown] = (await runCommands(
    [
      { args: ['user:password', 'ann', '--password-stdin'], input: 'short' },
      { args: ['user:password', 'ann', '--password-stdin'], input: 'new secret' },
      { args: ['user:password', 'nobody', '--password-stdin'], input: 'x' },
    ],
    { env },
  )) as [CliResult, CliResult, CliResult]
  assert.is(short.code, 1)
  assert.match(short.stderr, 'fw: the password has 5 characters: use at least 8')
  const { code, stdout, stderr } = replaced
  assert.is(code, 0, stderr)
  assert.match(stdout, /revoked 2 token\(s\)/)
  const old = await login(context, 'correct horse battery')
  await old.kernel.close()
  assert.is(old.status, 401)
  const now = await login(context, 'new secret')
  const check = await now.kernel.plugin('auth').verifyToken(before.token!)
  await now.kernel.close()
  assert.is(now.status, 200)
  assert.is(check.ok, false)
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, "fw: no user named 'nobody'.")
})

/**
 * `fw <args>` on a pseudo-terminal (util-linux `script`), typing each answer when its prompt has
 * appeared; answers everything the terminal showed and the exit code.
 */
function onTerminal(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  answers: readonly { after: string; type: string }[],
): Promise<{ code: number | null; shown: string }> {
  const bin = fileURLToPath(new URL('../../../cli/bin.ts', import.meta.url))
  const argv = [process.execPath, '--import', import.meta.resolve('tsx'), '-C', 'fw-source', bin]
  const command = [...argv, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    env: { ...env, FORCE_COLOR: '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let shown = ''
  let next = 0
  let from = 0 // where the next prompt is looked for: after the one last answered
  const onData = (chunk: Buffer) => {
    shown += chunk.toString()
    while (next < answers.length) {
      const at = shown.indexOf(answers[next]!.after, from)
      if (at === -1) break
      from = at + answers[next]!.after.length
      child.stdin.write(`${answers[next]!.type}\r`)
      next++
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  // A prompt that never comes fails the test with what was shown, rather than hanging the suite.
  const stuck = setTimeout(() => child.kill('SIGKILL'), 120_000)
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(stuck)
      resolve({ code, shown })
    }),
  )
}

test('user:password asks twice on a terminal, without echo, and refuses two different answers', async (context) => {
  const { env } = context
  const differ = await onTerminal(['user:password', 'ann'], env, [
    { after: 'Password: ', type: 'typed-once' },
    { after: 'Password again: ', type: 'typed-twice' },
  ])
  assert.is(differ.code, 1, differ.shown)
  assert.match(differ.shown, 'the two passwords differ; nothing was changed.')
  const same = await onTerminal(['user:password', 'ann'], env, [
    { after: 'Password: ', type: 'from the prompt' },
    { after: 'Password again: ', type: 'from the prompt' },
  ])
  assert.is(same.code, 0, same.shown)
  assert.match(same.shown, /Password: [^]*Password again: /)
  assert.not.match(same.shown, 'from the prompt', 'nothing typed is echoed')
  const { status, kernel } = await login(context, 'from the prompt')
  await kernel.close()
  assert.is(status, 200)
})

test.run()
