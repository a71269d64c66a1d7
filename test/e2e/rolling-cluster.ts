// Several `fw serve` processes of one app behind HAProxy, as a scale-out deployment runs them, and a
// keep-alive load through HAProxy: what test/e2e/rolling.test.ts and bench/rolling.ts share. Each
// instance has an app root of its own (a temp app: one machine each), all on one PostgreSQL
// database when `databaseUrl` is given; without, the app registers no database plugin (PGlite
// belongs to one process) and the loaded route is a plain one.
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createTempApp, type TempApp } from '../cli/temp-app.js'
import { servePlayground, type ServedApp } from './serve-process.js'
import { freePort } from '../fixtures/free-port.js'

/** Where Debian's package puts HAProxy (`.ci/run` installs it). */
export const HAPROXY = '/usr/sbin/haproxy'

/** One `fw serve` behind HAProxy, its root, and the port it keeps across restarts. */
export interface Instance {
  readonly app: TempApp
  served: ServedApp
  readonly port: number
}

/** What one rolling step took, in milliseconds. */
export interface RestartTiming {
  /** SIGTERM to the process's exit (the shutdown delay, then the drain). */
  readonly stop: number
  /** Spawn to the `listening` line. */
  readonly start: number
  /** The `listening` line to HAProxy marking the server UP (its `rise` checks). */
  readonly up: number
  readonly exitCode: number | null
}

export interface Cluster {
  /** HAProxy's front, `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly instances: readonly Instance[]
  /** The route the load requests: one that reads the database when there is one. */
  readonly path: string
  /** HAProxy's view of each server (`UP`, `DOWN`, `UP 1/2`, …), in order. */
  states(): Promise<string[]>
  /** HAProxy's backend counters: connect retries, redispatches, failed connects, 5xx it answered. */
  counters(): Promise<BackendCounters>
  /** Resolves once HAProxy has every server UP, or throws after `ms`. */
  waitAllUp(ms?: number): Promise<void>
  /** SIGTERM instance `i`, wait for its exit, start it again on its port, wait until it is UP. */
  restart(i: number): Promise<RestartTiming>
  /** The HAProxy configuration written. */
  readonly config: string
  /** Stops HAProxy and every instance, removes the roots. */
  stop(): Promise<void>
}

/** From HAProxy's `show stat`, the backend's row. */
export interface BackendCounters {
  /** Connections retried (`wretr`). */
  readonly retries: number
  /** Requests sent to another server after failed tries (`wredis`). */
  readonly redispatches: number
  /** Failed connects to a server (`econ`). */
  readonly connectErrors: number
  /** Responses with a 5xx status, HAProxy's own included (`hrsp_5xx`). */
  readonly http5xx: number
}

export interface ClusterOptions {
  readonly count: number
  /** `--shutdown-delay`, seconds. */
  readonly shutdownDelay: number
  /** A PostgreSQL URL every instance shares; without, no database plugin. */
  readonly databaseUrl?: string
}

/** The app: health (for `/health/ready`), the database when shared, a route that reads it. */
function rollingApp(database: boolean): TempApp {
  const resolve = (s: string): string => JSON.stringify(import.meta.resolve(s))
  return createTempApp({
    preamble: [
      `import health from ${resolve('fw/plugins/health')}`,
      database ? `import database from ${resolve('fw/plugins/database')}` : '',
    ].join('\n'),
    setup: [
      database
        ? `  kernel.register(database, { url: env?.DATABASE_URL ?? process.env.DATABASE_URL, entities: [] })
  kernel.router.get('db', async function db() {
    const rows = await kernel.plugin('database').runStatement({ sql: 'select 1 as one', bindings: [] })
    return { one: rows[0].one }
  }).name('db')`
        : '',
      `  kernel.register(health, { diskSpace: false, memoryLimit: false, cache: false })`,
    ].join('\n'),
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** One command on HAProxy's stats socket; its whole answer. */
function statsCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket)
    let out = ''
    conn.setEncoding('utf8')
    conn.on('data', (c: string) => (out += c))
    conn.on('end', () => resolve(out))
    conn.on('error', reject)
    conn.write(`${command}\n`)
  })
}

/** The HAProxy configuration as a user writes it for fw, with the ports known. */
export function haproxyConfig(
  front: number,
  ports: readonly number[],
  statsSocket: string,
): string {
  return `global
  maxconn 4096
  stats socket ${statsSocket} mode 600 level admin

defaults
  mode http
  # Keep-alive to clients and to the servers (HAProxy's default mode, said out loud).
  option http-keep-alive
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  timeout http-request 10s
  timeout check 1s
  # The default retry policy: a failed connect is retried, the last try on another server.
  retries 3
  option redispatch

frontend web
  bind 127.0.0.1:${front}
  default_backend fw

backend fw
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  default-server inter 200ms fall 2 rise 2
${ports.map((port, i) => `  server fw${i + 1} 127.0.0.1:${port} check`).join('\n')}
`
}

/** Starts `count` instances, then HAProxy in front of them; resolves once every server is UP. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const database = options.databaseUrl !== undefined
  const serveArgs = (port: number): string[] => [
    '--port',
    String(port),
    '--shutdown-delay',
    String(options.shutdownDelay),
  ]
  const env = (app: TempApp): NodeJS.ProcessEnv => ({
    ...app.env,
    NODE_ENV: 'production',
    ...(database ? { DATABASE_URL: options.databaseUrl } : {}),
  })
  const apps = Array.from({ length: options.count }, () => rollingApp(database))
  const instances: Instance[] = []
  let haproxy: ChildProcess | undefined
  let haproxyExit: Promise<unknown> | undefined
  const stop = async (): Promise<void> => {
    if (haproxy !== undefined && haproxy.exitCode === null) {
      haproxy.kill('SIGTERM')
      await haproxyExit
    }
    await Promise.all(instances.map((i) => i.served.stop()))
    for (const app of apps) app.remove()
  }
  try {
    // All at once, as a deployment starts them (on PostgreSQL they migrate under the lock).
    const served = await Promise.all(
      apps.map((app) => servePlayground(env(app), 60_000, [], serveArgs(0))),
    )
    served.forEach((s, i) =>
      instances.push({ app: apps[i]!, served: s, port: Number(new URL(s.url).port) }),
    )
    const front = await freePort()
    const socket = join(apps[0]!.root, 'haproxy.sock')
    const config = haproxyConfig(
      front,
      instances.map((i) => i.port),
      socket,
    )
    const file = join(apps[0]!.root, 'haproxy.cfg')
    writeFileSync(file, config)
    const child = spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] })
    haproxy = child
    let haproxyOut = ''
    child.stdout?.on('data', (c: Buffer) => (haproxyOut += c.toString()))
    child.stderr?.on('data', (c: Buffer) => (haproxyOut += c.toString()))
    haproxyExit = new Promise((resolve) => child.once('exit', resolve))

    /** `show stat` as one record per proxy row, keyed by server name (`BACKEND` for the backend). */
    const stat = async (): Promise<Map<string, Record<string, string>>> => {
      const csv = await statsCommand(socket, 'show stat')
      const lines = csv.split('\n').filter((l) => l !== '')
      const header = lines[0]!.replace(/^# /, '').split(',')
      const rows = new Map<string, Record<string, string>>()
      for (const line of lines.slice(1)) {
        const cols = line.split(',')
        const row = Object.fromEntries(header.map((h, i) => [h, cols[i] ?? '']))
        if (row.pxname === 'fw') rows.set(row.svname!, row)
      }
      return rows
    }
    const states = async (): Promise<string[]> => {
      const rows = await stat()
      return instances.map((_, i) => rows.get(`fw${i + 1}`)?.status ?? 'missing')
    }
    const counters = async (): Promise<BackendCounters> => {
      const row = (await stat()).get('BACKEND') ?? {}
      const n = (key: string): number => Number(row[key] ?? 0) || 0
      return {
        retries: n('wretr'),
        redispatches: n('wredis'),
        connectErrors: n('econ'),
        http5xx: n('hrsp_5xx'),
      }
    }
    const waitUp = async (which: (states: string[]) => boolean, ms: number): Promise<void> => {
      const started = performance.now()
      for (;;) {
        if (child.exitCode !== null) throw new Error(`haproxy exited:\n${haproxyOut}`)
        const now = await states().catch(() => undefined)
        if (now !== undefined && which(now)) return
        if (performance.now() - started > ms)
          throw new Error(`HAProxy's servers not UP in ${ms} ms: ${now?.join(', ')}\n${haproxyOut}`)
        await sleep(20)
      }
    }
    const waitAllUp = (ms = 10_000): Promise<void> => waitUp((s) => s.every((x) => x === 'UP'), ms)
    await waitAllUp()

    return {
      url: `http://127.0.0.1:${front}`,
      instances,
      path: database ? '/db' : '/hello',
      config,
      states,
      counters,
      waitAllUp,
      async restart(i) {
        const instance = instances[i]!
        let t = performance.now()
        const exitCode = await instance.served.stop()
        const stopMs = performance.now() - t
        t = performance.now()
        instance.served = await servePlayground(
          env(instance.app),
          60_000,
          [],
          serveArgs(instance.port),
        )
        const startMs = performance.now() - t
        t = performance.now()
        await waitUp((s) => s[i] === 'UP', 10_000)
        return { stop: stopMs, start: startMs, up: performance.now() - t, exitCode }
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Requests answered 200, and those that failed (a socket error or another status). */
export interface PhaseCounts {
  ok: number
  failed: number
  ms: number
}

/** A keep-alive load: `clients` loops, each on one keep-alive socket of its own (re-opened when closed). */
export interface Load {
  /** Starts counting into a new phase. */
  phase(name: string): void
  /** Stops every loop; resolves with each phase's counts. */
  stop(): Promise<Map<string, PhaseCounts>>
  /** The first failures, described. */
  readonly failures: string[]
}

export function startLoad(url: string, path: string, clients = 16): Load {
  const { hostname, port } = new URL(url)
  const phases = new Map<string, PhaseCounts>()
  const failures: string[] = []
  let current: PhaseCounts = { ok: 0, failed: 0, ms: 0 }
  let currentStarted = performance.now()
  let name = 'warm-up'
  phases.set(name, current)
  let running = true
  const fail = (what: string): void => {
    current.failed++
    if (failures.length < 20) failures.push(`${name}: ${what}`)
  }
  const once = (agent: http.Agent): Promise<void> =>
    new Promise((resolve) => {
      const req = http.get({ agent, hostname, port, path }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => {
          if (res.statusCode === 200) current.ok++
          else fail(`${res.statusCode} ${body.slice(0, 120)}`)
          resolve()
        })
        res.on('error', (error) => {
          fail(`response ${error.message}`)
          resolve()
        })
      })
      req.on('error', (error: NodeJS.ErrnoException) => {
        fail(`${error.code ?? ''} ${error.message}`)
        resolve()
      })
    })
  const loops = Array.from({ length: clients }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    while (running) await once(agent)
    agent.destroy()
  })
  return {
    failures,
    phase(next) {
      const now = performance.now()
      current.ms = now - currentStarted
      currentStarted = now
      name = next
      current = { ok: 0, failed: 0, ms: 0 }
      phases.set(name, current)
    },
    async stop() {
      running = false
      current.ms = performance.now() - currentStarted
      await Promise.all(loops)
      return phases
    },
  }
}
