import type { Readable, Writable } from 'node:stream'
import type { RequestContext } from './context.js'
import type { Kernel } from './kernel-type.js'
import type { Logger } from './logger.js'
import type { UserConfig } from './config.js'
import type { Reply } from './reply.js'

export type { Identity } from './identity.js'

/** The HTTP methods a route can be declared for. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

/**
 * A route handler: gets the request context, returns a {@link Reply} or a plain value that the
 * kernel wraps (object/array → JSON, string → HTML or text, nothing → 204).
 */
export type Handler = (ctx: RequestContext) => unknown

/** A class whose instances answer routes; constructed once per request that reaches it. */
export type ControllerClass = new () => object

/**
 * Where a route sends a request: a function, a controller class and method name, or a string
 * `'Class@method'` naming a controller registered with `kernel.controller(name, Class)` (a group's
 * `namespace` is prepended to the class part).
 */
export type HandlerRef = Handler | readonly [ControllerClass, string] | string

/** What `next()` runs: the rest of the middleware chain and the handler. */
export type Next = () => Promise<Reply>

/**
 * Named onion middleware: do something before, `await next()`, do something after, return the
 * reply (or answer early without calling `next`).
 *
 * @example
 * kernel.middleware('poweredBy', async (ctx, next) => (await next()).header('x-powered-by', 'fw'))
 */
export type Middleware = (ctx: RequestContext, next: Next) => Promise<Reply>

/** A model loader for implicit route binding: returns undefined when there is no such record. */
export type BindingLoader = (value: string, ctx: RequestContext) => Promise<unknown>

/**
 * A CLI command a plugin contributes: a clipanion `Command` subclass (the kernel does not depend
 * on clipanion; the CLI checks the class when it registers it).
 */
export type CommandClass = abstract new () => object

/** What the CLI and `createTestApp` (`fw/testing`) give an {@link AppFactory}. */
export interface AppOptions {
  /** The environment to read (`DATABASE_URL`, `FW_APP_KEY`, `PORT`, …). Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /**
   * The app's folder: where `views/`, `public/`, `var/` and `.env` live. The CLI passes the folder
   * of the app module's source, also when it runs the compiled copy under `dist/`, so a factory
   * that roots its kernel here serves the same files built or not (docs/getting-started.md).
   */
  root?: string
  /** Where failures go instead of the app's own logger (a test's memory logger). */
  logger?: Logger
}

/**
 * What an application module default-exports: a function that builds its kernel (plugins
 * registered, not booted, not listening). The CLI, `createTestApp` and `npm run playground` call
 * it.
 */
export type AppFactory = (options?: AppOptions) => Kernel | Promise<Kernel>

/**
 * What a CLI command gets as `this.context`: clipanion's `BaseContext` fields plus the loaded
 * application's kernel. A plugin's command extends `Command<CommandContext>`.
 *
 * @example
 * class Hello extends Command<CommandContext> {
 *   static override paths = [['hello']]
 *   async execute() { this.context.stdout.write(`${this.context.kernel.config.app.name}\n`) }
 * }
 */
export interface CommandContext {
  kernel: Kernel
  env: Record<string, string | undefined>
  stdin: Readable
  stdout: Writable
  stderr: Writable
  colorDepth: number
}

/** Options of {@link createKernel}. */
export interface KernelOptions {
  /** The application's own directory (`var/log`, `var/MAINTENANCE`, …). Default: the cwd. */
  root?: string
  /** The application's configuration, merged over the defaults, under the environment. */
  config?: UserConfig
  /** The environment to read overrides from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Where the kernel reports failures (500s, broken taps). Default: JSON lines on stderr. */
  logger?: Logger
}

/** A kernel's lifecycle state. */
export type KernelState = 'created' | 'booting' | 'booted' | 'closing' | 'closed'

/** A measured boot phase or plugin setup, in milliseconds. */
export interface BootTiming {
  readonly name: string
  readonly duration: number
}
