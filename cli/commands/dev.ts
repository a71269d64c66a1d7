import { Command, Option, UsageError } from 'clipanion'
import type { FwContext } from '../context.js'
import { loadApp } from '../load-app.js'
import { parsePort } from '../options.js'
import { ServeCommand } from './serve.js'

/**
 * `fw dev`: serves the app as `fw serve` does, and serves each saved change by the next request
 * without restarting the process (docs/dev.md). Loads the app itself, after its loader hooks.
 */
export class DevCommand extends Command<FwContext> {
  static override paths = [['dev']]
  /** The app is loaded by the command, after the hooks that let it be loaded again. */
  static readonly needsApp = false

  static override usage = Command.Usage({
    category: 'Server',
    description: 'Serve the app in development, reloading on save',
    details: `
      Listens like \`fw serve\` (\`PORT\`, \`HOST\`, or the app's \`http\` config; \`--port\` and \`--host\` override them) and watches the app's folder.

      A saved controller, route, middleware or service module is served by the next request: the app is built again in this process from the changed modules and swapped in behind the socket, keeping the database connection (an in-memory PGlite database included), so sessions, tokens and rows survive. A template or asset is served as it is. A change to \`.env\`, \`package.json\` or a migration builds the app again with \`.env\` read anew and pending migrations applied.

      A file that fails to load leaves the last good build serving; the error is printed once with its place and a code frame, and open pages show it until a save fixes it. Open pages reload themselves after each change.

      Development mode: with \`NODE_ENV\` unset it sets \`NODE_ENV=development\`; under \`NODE_ENV=production\` it is \`fw serve\` (no watcher, no loader hook, no reload stream); under another \`NODE_ENV\` the app must turn development mode on itself (config \`development\`), else it is refused, saying so. See docs/dev.md.
    `,
    examples: [
      ['Serve in development on the configured port', '$0 dev'],
      ['Serve in development on a free port', '$0 dev --port 0'],
    ],
  })

  port = Option.String('--port', { description: 'Port to listen on (0 picks a free one)' })
  host = Option.String('--host', { description: 'Address to listen on, e.g. 0.0.0.0' })

  override async execute(): Promise<number> {
    const { env, stdout, stderr } = this.context
    const port = this.port === undefined ? undefined : parsePort(this.port)
    if (this.host !== undefined && this.host.trim() === '')
      throw new UsageError('--host must not be empty (e.g. --host=127.0.0.1).')
    // Production has none of it (no watcher, no loader hook, no reload stream): `fw serve`.
    if (env.NODE_ENV === 'production') return this.serve()
    // Unset, NODE_ENV is development: the app and its plugins see what `fw dev` is for, and an
    // app needs no setting to be served (test/e2e/dev-mode.test.ts).
    if (env.NODE_ENV === undefined || env.NODE_ENV === '') env.NODE_ENV = 'development'
    const { startDevServer } = await import('../dev/dev-server.js')
    const server = await startDevServer({
      cwd: this.context.kernel.root,
      env,
      stdout,
      stderr,
      port,
      host: this.host?.trim(),
    })
    const kernel = server.current()
    // Listened for before the line that says it listens, as `fw serve` does.
    const signalled = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    stdout.write(
      `fw: ${kernel.config.app.name} listening on ${server.address.url} (development: reloads on save)\n`,
    )
    await signalled
    stdout.write('fw: stopping…\n')
    await server.close()
    stdout.write('fw: stopped.\n')
    return 0
  }

  /** Runs `fw serve` with the same `--port` and `--host`, on the app loaded and booted now. */
  async serve(): Promise<number> {
    const kernel = await loadApp({ cwd: this.context.kernel.root, env: this.context.env })
    try {
      const serve = new ServeCommand()
      Object.assign(serve, {
        cli: this.cli,
        path: ['serve'],
        context: { ...this.context, kernel },
        port: this.port,
        host: this.host,
        workers: undefined,
        drainTimeout: undefined,
        shutdownDelay: undefined,
        requireDatabase: false,
        withWorker: false,
      })
      return await serve.execute()
    } finally {
      await kernel.close()
    }
  }
}
