// The playground (or any fw app) served by the real CLI, `fw serve --port 0`, in a child process:
// the compiled CLI when dist/ is up to date, else the sources through tsx. The parent learns the
// port from the `… listening on http://…` line, can ask a child started with the probe for its CPU
// time and resident memory over IPC, and kills every child it started when it exits, fails or is
// interrupted.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { killOnExit, type CpuTime } from './child-server.js'
import { sleep } from './stats.js'

/** The repository root. */
export const root = fileURLToPath(new URL('../..', import.meta.url))

/** How `fw` is run: its node arguments (before the command) and what the benchmark prints about it. */
export interface FwCommand {
  /** True for `node dist/cli/bin.js` (which prefers the compiled `dist/playground/app.js`). */
  readonly built: boolean
  readonly argv: readonly string[]
  /** One line saying which, and why. */
  readonly note: string
}

/** The folders `npm run build` compiles into dist/ (tsconfig.build.json). */
const BUILT_FOLDERS = ['kernel', 'plugins', 'cli', 'playground']
const SKIPPED = new Set(['node_modules', 'var', 'test', 'dist'])
/** Folders the build leaves out by name (tsconfig.build.json `exclude` entries without wildcards). */
const EXCLUDED: ReadonlySet<string> = (() => {
  try {
    const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
      exclude?: unknown
    }
    const entries = Array.isArray(config.exclude) ? config.exclude : []
    return new Set(
      entries
        .filter((e): e is string => typeof e === 'string' && !e.includes('*'))
        .map((e) => join(e)),
    )
  } catch {
    return new Set<string>()
  }
})()

/** The first source under the built folders whose dist/ output is missing or older, if any. */
function staleSource(dir = '', depth = 0): string | undefined {
  const folders = depth === 0 ? BUILT_FOLDERS : [dir]
  for (const folder of folders) {
    const abs = join(root, folder)
    if (!existsSync(abs)) continue
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const rel = join(folder, entry.name)
      if (entry.isDirectory()) {
        if (SKIPPED.has(entry.name) || EXCLUDED.has(rel)) continue
        const stale = staleSource(rel, depth + 1)
        if (stale !== undefined) return stale
      } else if (
        /\.[cm]?ts$/.test(entry.name) &&
        !/\.d\.[cm]?ts$|\.test\.[cm]?ts$/.test(entry.name)
      ) {
        const out = join(root, 'dist', rel.replace(/\.([cm]?)ts$/, '.$1js'))
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(root, rel)).mtimeMs)
          return rel
      }
    }
  }
  return undefined
}

/**
 * The built CLI when every source under kernel/, plugins/, cli/ and playground/ has an up-to-date
 * dist/ output (then `fw serve` also picks the compiled playground), else the sources through tsx.
 * `FW_BENCH_TSX=1` forces tsx.
 */
export function fwCommand(env: NodeJS.ProcessEnv = process.env): FwCommand {
  const tsx: readonly string[] = ['--import', 'tsx', '-C', 'fw-source', join(root, 'cli', 'bin.ts')]
  if (env.FW_BENCH_TSX === '1') {
    return { built: false, argv: tsx, note: 'sources through tsx (FW_BENCH_TSX=1)' }
  }
  const stale = existsSync(join(root, 'dist', 'cli', 'bin.js'))
    ? staleSource()
    : 'dist/cli/bin.js missing'
  if (stale === undefined) {
    return {
      built: true,
      argv: [join(root, 'dist', 'cli', 'bin.js')],
      note: 'built CLI, compiled playground (node dist/cli/bin.js serve)',
    }
  }
  return {
    built: false,
    argv: tsx,
    note: `sources through tsx (node --import tsx -C fw-source cli/bin.ts serve): dist/ is not up to date (${relative(root, join(root, stale))}); \`npm run build\` to measure the built CLI`,
  }
}

/** Resident and heap memory of a child, in bytes (`process.memoryUsage()`). */
export interface MemorySample {
  readonly rss: number
  readonly heapTotal: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
  /** True when the child ran a full GC first (it was asked to and runs with --expose-gc). */
  readonly collected: boolean
}

/** What the parent asks a child that runs with probe.mjs. */
export type ProbeQuestion =
  { readonly type: 'cpu' } | { readonly type: 'memory'; readonly gc: boolean }
/** What probe.mjs answers. */
export type ProbeAnswer =
  ({ readonly type: 'cpu' } & CpuTime) | ({ readonly type: 'memory' } & MemorySample)

/** Options of {@link startFw}. */
export interface StartFwOptions {
  /** A label for messages. */
  readonly name: string
  /** Environment on top of this process's (`DATABASE_URL`, `NODE_ENV`, `FW_APP`, …). */
  readonly env?: Readonly<Record<string, string>>
  /** Node options before the CLI (`--expose-gc`, `--cpu-prof`, …). */
  readonly nodeArgs?: readonly string[]
  /** Preload probe.mjs with an IPC channel: enables cpu() and memory(); the child dies with us. */
  readonly probe?: boolean
  /** Default: {@link fwCommand}(). */
  readonly command?: FwCommand
  /** A program to run Node under, with its arguments (`['valgrind', '--tool=callgrind']`). */
  readonly wrapper?: readonly string[]
  /** Where the child runs (the app is found from there); default the repository root. */
  readonly cwd?: string
}

/** A `fw serve` child. */
export interface FwChild {
  readonly name: string
  readonly pid: number
  /** `performance.now()` just before the spawn. */
  readonly spawnedAt: number
  /**
   * Resolves with the URL and `performance.now()` when the child prints `listening on http://…`;
   * rejects if it exits first or does not within `ms`.
   */
  listening(ms?: number): Promise<{ url: string; at: number }>
  /** What the child wrote to stdout and stderr so far (for failure messages). */
  output(): string
  /** The child's CPU time so far (needs `probe`). */
  cpu(): Promise<CpuTime>
  /** The child's memory (needs `probe`); `gc` asks for a full GC first (needs --expose-gc). */
  memory(gc?: boolean): Promise<MemorySample>
  /** SIGTERM (fw drains and exits), SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>
}

const PROBE = pathToFileURL(fileURLToPath(new URL('./probe.mjs', import.meta.url))).href
const LISTENING = /listening on (http:\/\/\S+)/

/** Spawns `fw serve --port 0 --host 127.0.0.1` (the playground, unless `env.FW_APP` says otherwise). */
export function startFw(options: StartFwOptions): FwChild {
  const command = options.command ?? fwCommand()
  const probe = options.probe === true
  const args = [
    ...(options.nodeArgs ?? []),
    ...(probe ? ['--import', PROBE] : []),
    ...command.argv,
    'serve',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
  ]
  const spawnedAt = performance.now()
  const [file, ...prefix] = [...(options.wrapper ?? []), process.execPath]
  const child = spawn(file!, [...prefix, ...args], {
    cwd: options.cwd ?? root,
    stdio: probe ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    // FW_CONFIG empty: a developer's own (environment or playground/.env) must not change the figures.
    // FW_API_LIMIT: a load far past the playground's API rate limit (1,000 a minute) is the point.
    env: {
      ...process.env,
      FORCE_COLOR: '0',
      NO_COLOR: '1',
      FW_CONFIG: '',
      FW_API_LIMIT: '1000000000',
      ...options.env,
    },
  })
  killOnExit(child)
  let out = ''
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    // Not started at all (a wrapper that is not installed): told as an exit, with the reason.
    child.once('error', (error) => {
      out += `${file}: ${error.message}\n`
      resolve({ code: null, signal: null })
    })
  })
  let listened: { url: string; at: number } | undefined
  const waiters: Array<() => void> = []
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    if (listened === undefined) {
      const match = LISTENING.exec(out)
      if (match) {
        listened = { url: match[1]!.replace(/\/$/, ''), at: performance.now() }
        for (const wake of waiters.splice(0)) wake()
      }
    }
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
  })
  const ask = <T extends ProbeAnswer['type']>(
    question: ProbeQuestion & { type: T },
  ): Promise<Extract<ProbeAnswer, { type: T }>> => {
    if (!probe) return Promise.reject(new Error(`${options.name}: started without the probe`))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onAnswer)
        reject(new Error(`${options.name} did not answer '${question.type}' within 10 s`))
      }, 10_000)
      function onAnswer(answer: ProbeAnswer): void {
        if (answer.type !== question.type) return
        clearTimeout(timer)
        child.off('message', onAnswer)
        resolve(answer as Extract<ProbeAnswer, { type: T }>)
      }
      child.on('message', onAnswer)
      child.send(question)
    })
  }
  return {
    name: options.name,
    pid: child.pid!,
    spawnedAt,
    output: () => out,
    listening(ms = 30_000) {
      if (listened !== undefined) return Promise.resolve(listened)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${options.name} did not listen within ${ms} ms:\n${out}`)),
          ms,
        )
        waiters.push(() => {
          clearTimeout(timer)
          resolve(listened!)
        })
        void exited.then(({ code, signal }) => {
          clearTimeout(timer)
          reject(
            new Error(
              `${options.name} exited (code ${code}, signal ${signal}) before listening:\n${out}`,
            ),
          )
        })
      })
    },
    cpu: async () => {
      const { user, system } = await ask({ type: 'cpu' })
      return { user, system }
    },
    memory: async (gc = false) => {
      const { type: _type, ...sample } = await ask({ type: 'memory', gc })
      return sample
    },
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      // With the probe, closing the channel makes it SIGTERM its own process; without, we do.
      if (probe && child.connected) child.disconnect()
      else child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}

/** Status and body of one GET on loopback (no keep-alive: each call is a new connection). */
export function get(
  url: string,
  headers: Readonly<Record<string, string>> = {},
  timeoutMs = 5_000,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { ...headers, connection: 'close' }, timeout: timeoutMs },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end()
  })
}

/**
 * GETs `url` every `everyMs` until it answers 200 (connection refused and other statuses count as
 * "not yet"); resolves with `performance.now()` of that answer and its body. Bounded by `withinMs`.
 */
export async function firstOk(
  url: string,
  headers: Readonly<Record<string, string>> = {},
  withinMs = 30_000,
  everyMs = 10,
): Promise<{ at: number; body: string }> {
  const deadline = performance.now() + withinMs
  let last = 'no answer'
  while (performance.now() < deadline) {
    try {
      const res = await get(url, headers, Math.max(1, deadline - performance.now()))
      if (res.status === 200) return { at: performance.now(), body: res.body }
      last = `${res.status} ${res.body.slice(0, 200)}`
    } catch (error) {
      last = (error as Error).message
    }
    await sleep(everyMs)
  }
  throw new Error(`GET ${url} did not answer 200 within ${withinMs} ms (last: ${last})`)
}
