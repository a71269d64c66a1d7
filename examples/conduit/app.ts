import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel, type AppFactory, type Kernel, type Logger } from 'fw'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import logging from 'fw/plugins/logging'
import openapi from 'fw/plugins/openapi'
import { entities } from './entities.js'
import { migrations } from './migrations.js'
import conduit from './plugin.js'

/** This folder: the app's root (`var/` for the database and logs). */
export const root = dirname(fileURLToPath(import.meta.url))

/**
 * The key tokens are signed with outside production when `FW_APP_KEY` is not set: the example
 * starts with one command. In production set `FW_APP_KEY` (`fw key:generate`); without it,
 * registration and sign-in answer 500.
 */
const DEVELOPMENT_KEY = 'base64:Y29uZHVpdC1kZXZlbG9wbWVudC1rZXktbm90LWZvci1wcm9k'

/**
 * How long a token is valid, in seconds: a day. RealWorld's clients sign in again when the API
 * refuses their token (401). `FW_CONFIG='{"auth":{"token_ttl":3600}}'` sets another.
 */
export const TOKEN_TTL = 86_400

/**
 * The RealWorld (Conduit) backend on fw: the database plugin (embedded PGlite in `var/db`, or
 * PostgreSQL with `DATABASE_URL`), the auth plugin with `Authorization: Token <jwt>`, and the
 * `conduit` plugin with the API under `/api`. `npm run example:conduit` serves it.
 */
export default function createApp({
  env = process.env,
  logger,
}: {
  /** The environment (`DATABASE_URL`, `FW_APP_KEY`, `PORT`, `NODE_ENV`, …). */
  env?: NodeJS.ProcessEnv
  /** Where failures go; default: the logging plugin, JSON lines in `var/log/conduit.log`. */
  logger?: Logger
} = {}): Kernel {
  const production = env.NODE_ENV === 'production'
  const kernel = createKernel({
    root,
    env,
    logger,
    config: {
      app: { name: 'conduit', ...(production ? {} : { key: DEVELOPMENT_KEY }) },
      auth: { token_scheme: 'Token', token_ttl: TOKEN_TTL },
      database: { url: `pglite://${join(root, 'var', 'db')}` },
    },
  })
  if (logger === undefined) kernel.register(logging)
  return (
    kernel
      .register(database, { entities, migrations })
      .register(auth, { webLogin: false })
      // `fw api:docs`: the routes of `controllers/`, a signed-in route behind the token.
      .register(openapi, {
        title: 'Conduit API',
        apiVersion: '1.1.0',
        security: { 'conduit.signedIn': ['bearerAuth'] },
      })
      .register(conduit)
  )
}

createApp satisfies AppFactory
