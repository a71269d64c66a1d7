import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../../playground/app.js'
import { openApp } from '../../fixtures/booted-app.js'

/** The playground's API key (playground/README.md). */
export const DEMO_KEY = 'demo-api-key'
export const APP_KEY = 'base64:api-middleware-test-key'

/** The playground on a database of the suite's own, migrated and seeded. */
export interface PlaygroundApp {
  readonly kernel: Kernel
  readonly db: TestDatabase
  close(): Promise<void>
}

/**
 * Boots the playground on a fresh test database (PGlite in memory, or a PostgreSQL database of
 * its own under `DATABASE_URL`). `config` is deep-merged last (`FW_CONFIG`); by default the
 * `debug` feature is off so that JSON bodies carry no `_debug` key.
 */
export async function playgroundApp(
  config: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<PlaygroundApp> {
  const db = await createTestDatabase()
  const kernel = createApp({
    env: {
      DATABASE_URL: db.url,
      FW_APP_KEY: APP_KEY,
      FW_CONFIG: JSON.stringify({ features: [], ...config }),
      ...env,
    },
    logger: createMemoryLogger(),
  })
  return openApp(kernel, db)
}

/** A cookie's value from `Set-Cookie`. */
export function cookieFrom(
  setCookie: string | string[] | undefined,
  name: string,
): string | undefined {
  const all = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  return all
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]!
    .slice(name.length + 1)
}

/** Signs in through the `/login` form: the session cookie and its CSRF token. */
export async function signIn(
  kernel: Kernel,
  username = 'editor',
): Promise<{ session: string; csrf: string }> {
  const form = await kernel.inject('/login')
  const loginCsrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!
  const res = await kernel.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      _csrf: loginCsrf,
      username,
      password: `${username}-pass`,
    }).toString(),
    cookies: { fw_login_csrf: cookieFrom(form.headers['set-cookie'], 'fw_login_csrf')! },
  })
  assert.is(res.status, 303, res.body)
  const session = cookieFrom(res.headers['set-cookie'], 'fw_session')!
  const page = await kernel.inject({ url: '/login', cookies: { fw_session: session } })
  const csrf = /<meta name="csrf" content="([^"]+)">/.exec(page.body)![1]!
  return { session, csrf }
}

/** An access token of a user, through `POST /account/login`. */
export async function tokenOf(kernel: Kernel, username = 'editor'): Promise<string> {
  const res = await kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username, password: `${username}-pass` },
  })
  assert.is(res.status, 200, res.body)
  return res.json<{ access_token: string }>().access_token
}

/** The API error envelope (plugins/api/README.md "Failures"). */
export function envelope(
  status: number,
  error: string,
): { status: number; statusmessage: string; error: string } {
  const statusmessage =
    error === 'Unauthenticated'
      ? 'Unauthenticated'
      : status === 401
        ? 'Authentication failure'
        : 'Forbidden'
  return { status, statusmessage, error }
}

/** The envelope's fixed keys of a reply body (`message` checked to be a non-empty string). */
export function envelopeOf(body: Record<string, unknown>): Record<string, unknown> {
  assert.type(body.message, 'string')
  assert.ok((body.message as string).length > 0)
  return { status: body.status, statusmessage: body.statusmessage, error: body.error }
}
