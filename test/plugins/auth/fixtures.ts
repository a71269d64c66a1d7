// A test app for the auth suites: the database (a suite's own), the auth plugin with the
// playground's demo users and a clock the test moves, the views plugin on the playground's
// templates, and two probes that answer who the request is from.
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import { definePlugin, type Kernel } from 'fw'
import { createTestKernel, type MemoryLogger } from 'fw/testing'
import auth, { type AuthOptions } from 'fw/plugins/auth'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import views from 'fw/plugins/views'
import { root as playgroundRoot } from '../../../playground/app.js'
import { seedDemoUsers } from '../../../playground/auth/seed-users.js'
import { openApp } from '../../fixtures/booted-app.js'

export const APP_KEY = 'base64:auth-suite-application-key-0123456789'
export const ALICE_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'

/** A clock the test moves by hand (Unix ms). */
export interface Clock {
  t: number
}

export interface AuthApp {
  kernel: Kernel & { logger: MemoryLogger }
  db: TestDatabase
  clock: Clock
  close(): Promise<void>
}

/**
 * Builds, boots and seeds an app. `clock: false` keeps the real clock (for the TTL suite's real
 * wait); `env` adds to the environment (`FW_APP_KEY` is set unless `env.FW_APP_KEY` is '').
 */
export async function createAuthApp(
  options: {
    env?: Record<string, string>
    auth?: AuthOptions
    realClock?: boolean
    /** Declares the suite's own middleware and routes (a plugin that depends on auth). */
    routes?: (kernel: Kernel) => void
  } = {},
): Promise<AuthApp> {
  const db = await createTestDatabase()
  const clock: Clock = { t: Date.UTC(2026, 0, 1, 12, 0, 0) }
  const env: Record<string, string> = { FW_APP_KEY: APP_KEY, ...options.env }
  if (env.FW_APP_KEY === '') delete env.FW_APP_KEY
  const kernel = createTestKernel({
    root: playgroundRoot,
    env,
    config: { app: { name: 'auth-test' } },
    plugins: [
      [views, {}],
      [database, { url: db.url, entities: [] }],
      [
        auth,
        {
          seed: seedDemoUsers,
          ...(options.realClock ? {} : { now: () => clock.t }),
          ...options.auth,
        },
      ],
      ...(options.routes === undefined
        ? []
        : [
            [
              definePlugin({ name: 'auth-probe', dependsOn: ['auth'], setup: options.routes }),
              undefined,
            ] as const,
          ]),
    ],
  })
  kernel.router.match(['GET', 'POST', 'DELETE'], 'probe/whoami', async (ctx) => ({
    identity: (await ctx.identity()) ?? null,
  }))
  return { ...(await openApp(kernel, db)), clock }
}

/** The TOTP code of a secret at a time (Unix ms). */
export function totpAt(secret: string, ms: number): string {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: ms })
}

/** `POST /account/login` with a JSON body. */
export function login(kernel: Kernel, username: string, password: string) {
  return kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username, password },
  })
}

/** `POST /account/login2fa` with a code, for the pending login whose `fw_2fa` cookie is given. */
export function secondFactor(kernel: Kernel, code: string, pending: string) {
  return kernel.inject({
    method: 'POST',
    url: '/account/login2fa',
    body: { code },
    cookies: { fw_2fa: pending },
  })
}

/** The `name=value` of a cookie a response sets, for sending it back. */
export function cookieFrom(
  setCookie: string | string[] | undefined,
  name: string,
): string | undefined {
  const all = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  const line = all.find((c) => c.startsWith(`${name}=`))
  return line?.split(';')[0]!.slice(name.length + 1)
}

/** The full `Set-Cookie` line of a cookie. */
export function setCookieLine(setCookie: string | string[] | undefined, name: string): string {
  const all = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  return all.find((c) => c.startsWith(`${name}=`)) ?? ''
}

/** Decodes a JWT's payload without checking it. */
export function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >
}

export const templatesDir = join(playgroundRoot, 'views')

/** A username's row of `auth_lockouts`, as numbers. */
export interface LockoutRow {
  failures: number
  last_failure_at: number
  locked_until: number
}

/** The lockout row of a key (a username, an email), or undefined when it has none. */
export async function lockoutRow(app: AuthApp, username: string): Promise<LockoutRow | undefined> {
  const rows = await app.kernel
    .plugin('database')
    .em()
    .execute<Record<string, unknown>[]>(
      'select "failures", "last_failure_at", "locked_until" from "auth_lockouts" where "username" = ?',
      [username],
      'all',
    )
  const row = rows[0]
  return row === undefined
    ? undefined
    : {
        failures: Number(row.failures),
        last_failure_at: Number(row.last_failure_at),
        locked_until: Number(row.locked_until),
      }
}
