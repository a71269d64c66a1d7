import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel, type AppFactory, type Kernel, type Logger } from 'fw'
import playground from './plugin.js'

const here = dirname(fileURLToPath(import.meta.url))
/**
 * The playground's root: this folder, also when running compiled from `dist/playground/` (where
 * `var/` and `.env` do not live).
 */
export const root = basename(dirname(here)) === 'dist' ? join(here, '..', '..', 'playground') : here

/** Options of the playground's factory: the `AppFactory` options, plus a logger for tests. */
export interface PlaygroundOptions {
  /** The environment to read (`PORT`, `FW_CONFIG`, `NODE_ENV`, …). Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Where the kernel reports failures. Default: JSON lines on stderr. */
  logger?: Logger
}

/**
 * The playground app: its config (overridable through the environment, `FW_CONFIG` last) and the
 * `playground` plugin with the demo routes. `fw` and `npm run playground` call it.
 *
 * @example
 * const kernel = createApp({ env: {} })
 * const res = await kernel.inject('/_demo/ping')
 */
export default function createApp({ env = process.env, logger }: PlaygroundOptions = {}): Kernel {
  const kernel = createKernel({
    root,
    env,
    logger,
    config: {
      app: { name: 'playground' },
      features: ['debug', 'DevPanel'],
      development: env.NODE_ENV !== 'production',
      api: { cors_origins: ['*'] },
    },
  })
  return kernel.register(playground)
}

createApp satisfies AppFactory
