import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel, type AppFactory, type AppOptions, type Kernel } from 'fw'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import health from 'fw/plugins/health'
import logging from 'fw/plugins/logging'
import openapi from 'fw/plugins/openapi'
import views from 'fw/plugins/views'
import { controllersIn, entitiesIn, migrationsIn, pluginsIn } from './modules.js'

/** This module's folder: `controllers/`, `entities/`, `migrations/`, `plugins/` (under `dist/` when built). */
const here = dirname(fileURLToPath(import.meta.url))

/**
 * The app: fw's plugins, then every module of `entities/`, `migrations/`, `plugins/` and
 * `controllers/` (what `fw make:*` writes). `fw dev`, `fw serve` and `createTestApp` call it.
 * `root` is where `views/`, `public/`, `var/` and `.env` live: the fw CLI passes this folder's
 * source, also when it runs the compiled copy under `dist/`.
 */
export default async function createApp({
  env = process.env,
  root = here,
  logger,
}: AppOptions = {}): Promise<Kernel> {
  const kernel = createKernel({
    root,
    env,
    logger,
    config: {
      app: { name: '__APP_NAME__' },
      // The embedded database in var/db, unless DATABASE_URL names another.
      database: { url: `pglite://${join(root, 'var', 'db')}` },
    },
  })
  if (logger === undefined) kernel.register(logging)
  kernel
    .register(views)
    .register(database, {
      entities: await entitiesIn(join(here, 'entities')),
      migrations: () => migrationsIn(join(here, 'migrations')),
    })
    .register(auth)
    .register(health)
    .register(openapi, { title: '__APP_NAME__ API' })
  for (const plugin of await pluginsIn(join(here, 'plugins'))) kernel.register(plugin)
  for (const controller of await controllersIn(join(here, 'controllers')))
    kernel.router.controller(controller)
  // `public/assets/` as `/assets/…` (the openapi plugin keeps its document in `public/api/`).
  kernel.static('assets', join(root, 'public', 'assets'))
  return kernel
}

createApp satisfies AppFactory
