// The Conduit example under test: the app from its factory on a database of the suite's own
// (PGlite in memory, or a fresh PostgreSQL database with DATABASE_URL), migrated, and helpers
// that speak its API as a client would.
import type { Test } from 'uvu'
import type { InjectResponse, Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger, type MemoryLogger } from 'fw/testing'
import createApp from '../../examples/conduit/app.js'
import { appSuite } from '../fixtures/app-suite.js'
import { openApp } from '../fixtures/booted-app.js'

export interface Conduit {
  kernel: Kernel
  logger: MemoryLogger
  db: TestDatabase
  close(): Promise<void>
}

/** The app on a database of its own; `env` adds to its environment (`FW_CONFIG`, say). */
export async function startConduit(env: NodeJS.ProcessEnv = {}): Promise<Conduit> {
  const db = await createTestDatabase()
  const logger = createMemoryLogger()
  const kernel = createApp({ env: { ...env, DATABASE_URL: db.url, NODE_ENV: 'test' }, logger })
  return { ...(await openApp(kernel, db)), logger }
}

/** A request to the API: `body` as JSON, `token` as `Authorization: Token …`. */
export function call(
  kernel: Kernel,
  method: string,
  path: string,
  options: { token?: string; body?: Record<string, unknown> } = {},
): Promise<InjectResponse> {
  return kernel.inject({
    method,
    url: `/api${path}`,
    headers: {
      accept: 'application/json',
      ...(options.token === undefined ? {} : { authorization: `Token ${options.token}` }),
    },
    ...(options.body === undefined ? {} : { body: options.body }),
  })
}

/** `POST /api/users`: a sign-up, without `password` when none is given. */
export function signUp(
  kernel: Kernel,
  username: string,
  email: string,
  password?: string,
): ReturnType<typeof call> {
  const user = { username, email, ...(password === undefined ? {} : { password }) }
  return call(kernel, 'POST', '/users', { body: { user } })
}

/** Registers `username` (email `<username>@conduit.test`, password `<username>-pass`): its token. */
export async function register(kernel: Kernel, username: string): Promise<string> {
  const res = await signUp(kernel, username, `${username}@conduit.test`, `${username}-pass`)
  if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${res.body}`)
  return res.json<{ user: { token: string } }>().user.token
}

/** Writes an article as the token's user: its slug. */
export async function write(
  kernel: Kernel,
  token: string,
  article: { title: string; description?: string; body?: string; tagList?: string[] },
): Promise<string> {
  const res = await call(kernel, 'POST', '/articles', {
    token,
    body: { article: { description: 'about it', body: 'the text', ...article } },
  })
  if (res.status !== 201) throw new Error(`write: ${res.status} ${res.body}`)
  return res.json<{ article: { slug: string } }>().article.slug
}

/** RealWorld's error body. */
export function errorsOf(res: InjectResponse): string[] {
  return res.json<{ errors: { body: string[] } }>().errors.body
}

/** What a {@link conduitSuite}'s tests get: the app, and the tokens of its users ann and bob. */
export interface ConduitSuite {
  app: Conduit
  ann: string
  bob: string
}

/**
 * A suite on a Conduit app of its own ({@link startConduit}) with two users registered, ann and
 * bob, before its tests; the app closed and its database dropped after them. More hooks of the
 * suite's own run after these.
 */
export function conduitSuite<Extra extends object = object>(
  name: string,
): Test<ConduitSuite & Extra> {
  const test = appSuite<Conduit, Omit<ConduitSuite, 'app'> & Extra>(name, startConduit)
  test.before(async (context) => {
    context.ann = await register(context.app.kernel, 'ann')
    context.bob = await register(context.app.kernel, 'bob')
  })
  return test
}
