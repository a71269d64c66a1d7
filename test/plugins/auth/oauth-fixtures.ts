// A playground app with the authorization server on, its signing keys in a temp dir (never
// `playground/var/keys`), and helpers for the token endpoint.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { Cli, type CommandClass } from 'clipanion'
import type { CommandContext, Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger, type MemoryLogger } from 'fw/testing'
import createApp from '../../../playground/app.js'
import { openApp } from '../../fixtures/booted-app.js'
import { APP_KEY } from './fixtures.js'

export const CLIENT_ID = 'demo-api-key'
export const CLIENT_SECRET = 'demo-api-secret'

export interface OAuthApp {
  kernel: Kernel
  logger: MemoryLogger
  db: TestDatabase
  dir: string
  privateKey: string
  publicKey: string
  env: Record<string, string>
  close(): Promise<void>
}

/** The `FW_CONFIG` of a suite: the feature (unless `features` says otherwise) and key paths in `dir`. */
export function oauthConfig(dir: string, features: string[] = ['authorization-server']): string {
  return JSON.stringify({
    features,
    oauth: {
      private_key: join(dir, 'keys', 'private.key'),
      public_key: join(dir, 'keys', 'public.key'),
    },
  })
}

/** Runs `run` on a {@link createOAuthApp} app (with `options`), closing the app whatever happens. */
export async function withOAuthApp(
  run: (app: OAuthApp) => Promise<void>,
  options: Parameters<typeof createOAuthApp>[0] = {},
): Promise<void> {
  const app = await createOAuthApp(options)
  try {
    await run(app)
  } finally {
    await app.close()
  }
}

/** Builds, boots and migrates the playground with the authorization server (keys not generated). */
export async function createOAuthApp(
  options: { features?: string[]; env?: Record<string, string> } = {},
): Promise<OAuthApp> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-oauth-'))
  const db = await createTestDatabase()
  const env = {
    DATABASE_URL: db.url,
    FW_APP_KEY: APP_KEY,
    FW_CONFIG: oauthConfig(dir, options.features),
    ...options.env,
  }
  const logger = createMemoryLogger()
  const kernel = createApp({ env, logger })
  const app = await openApp(kernel, db, () => rmSync(dir, { recursive: true, force: true }))
  return {
    ...app,
    logger,
    dir,
    env,
    privateKey: join(dir, 'keys', 'private.key'),
    publicKey: join(dir, 'keys', 'public.key'),
  }
}

/** Runs a command the kernel's plugins contributed, in process; answers its code and output. */
export async function runContributed(
  kernel: Kernel,
  argv: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const classes = kernel.commands() as unknown as CommandClass<CommandContext>[]
  const cli = Cli.from<CommandContext>(classes)
  const out = new PassThrough()
  const err = new PassThrough()
  let stdout = ''
  let stderr = ''
  out.on('data', (c: Buffer) => (stdout += c.toString()))
  err.on('data', (c: Buffer) => (stderr += c.toString()))
  const code = await cli.run(argv, {
    kernel,
    env: {},
    stdin: new PassThrough(),
    stdout: out,
    stderr: err,
    colorDepth: 1,
  })
  return { code, stdout, stderr }
}

/** `POST /api/oauth/token` with a form-urlencoded body. */
export function tokenRequest(
  kernel: Kernel,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return kernel.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  })
}

/** The password grant's fields for the demo application and a user. */
export function passwordGrant(username: string, password: string): Record<string, string> {
  return {
    grant_type: 'password',
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    username,
    password,
  }
}
