// `fw dev` save-to-served latency, on a temporary copy of the playground (PGlite in memory, as
// `npm run playground` with `DATABASE_URL=pglite://memory`): from writing the file to the first
// request that answers the new code, polled every 2 ms, over 20 controller edits
// (`controllers/demo.ts`, `GET /_demo/ping`) and 20 view edits (`views/home.eta`, `GET /`); the time
// until the open page is told to reload (the `reload` event on /_fw/dev/events); a change to a
// plugin's setup (`plugin.ts`: a new `annotate` tap); the server's RSS and CPU time after 100
// reloads. Baseline in the same run, interleaved between the phases: a full restart of `fw serve`
// on the same copy (spawn to the first 200 from `GET /_demo/ping`), which also loses the in-memory
// database. Prints p50/p95 against the targets; asserts nothing about time.
// Run: node --import tsx -C fw-source bench/dev-reload.ts [--reloads 100]
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { copyPlayground, runInCopy, type RunningApp } from '../test/e2e/dev-process.js'
import { median } from './lib/stats.js'

const args = process.argv.slice(2)
const reloadsAt = args.indexOf('--reloads')
const RELOADS = reloadsAt === -1 ? 100 : Math.max(40, Number(args[reloadsAt + 1]) || 100)
const EDITS = 20
/** Bounds every wait: a reload that never comes fails the benchmark instead of hanging it. */
const WITHIN_MS = 30_000

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Resident memory (MB) and CPU time (ms) of a process, from /proc. */
function usage(pid: number): { rssMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)![1])
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12]) // utime + stime, in clock ticks (100/s)
  return { rssMb: rssKb / 1024, cpuMs: ticks * 10 }
}

/** Milliseconds from now until `probe` answers true, polling every 2 ms. */
async function timeUntil(probe: () => Promise<boolean>, what: string): Promise<number> {
  const started = performance.now()
  for (;;) {
    if (await probe().catch(() => false)) return performance.now() - started
    if (performance.now() - started > WITHIN_MS)
      throw new Error(`${what}: not within ${WITHIN_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** The reload stream, as an open page holds it: resolves the next `reload` event's arrival time. */
async function openStream(url: string): Promise<{ next(): Promise<number>; close(): void }> {
  const controller = new AbortController()
  const res = await fetch(`${url}/_fw/dev/events`, { signal: controller.signal })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let waiting: ((at: number) => void) | undefined
  const pump = async (): Promise<void> => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      if (decoder.decode(value).includes('event: reload')) waiting?.(performance.now())
    }
  }
  // Ends with an abort when the benchmark closes the stream.
  pump().catch(() => undefined)
  return {
    next: () => new Promise((resolve) => (waiting = resolve)),
    close: () => controller.abort(),
  }
}

async function restart(copy: ReturnType<typeof copyPlayground>): Promise<number> {
  const started = performance.now()
  const served = await runInCopy(copy, 'serve', {}, WITHIN_MS * 4)
  await timeUntil(async () => (await fetch(`${served.url}/_demo/ping`)).status === 200, 'restart')
  const ms = performance.now() - started
  await served.stop()
  return ms
}

function line(label: string, values: readonly number[], target?: string): void {
  const p50 = percentile(values, 50).toFixed(0)
  const p95 = percentile(values, 95).toFixed(0)
  console.log(
    `  ${label.padEnd(34)} p50 ${p50.padStart(5)} ms  p95 ${p95.padStart(5)} ms  (n=${values.length})${target ? `  target ${target}` : ''}`,
  )
}

const copy = copyPlayground()
let app: RunningApp | undefined
try {
  console.log(
    `dev-reload: ${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (2 cores, shared with other work)`,
  )
  const restarts: number[] = [await restart(copy)]
  app = await runInCopy(copy, 'dev', {}, WITHIN_MS * 4)
  const url = app.url
  const pid = app.child.pid!
  await fetch(`${url}/_demo/ping`)
  await fetch(url)
  const start = usage(pid)
  const stream = await openStream(url)
  let reloads = 0
  let n = 1

  const controllerEdit = async (): Promise<{ served: number; told: number }> => {
    const next = n + 1
    const told = stream.next()
    const at = performance.now()
    copy.replace('controllers/demo.ts', `n: ${n} }`, `n: ${next} }`)
    n = next
    const served = await timeUntil(async () => {
      const res = await fetch(`${url}/_demo/ping`, { headers: { accept: 'application/json' } })
      return ((await res.json()) as { n: number }).n === next
    }, 'controller edit')
    reloads += 1
    return { served, told: (await told) - at }
  }

  const controller = { served: [] as number[], told: [] as number[] }
  for (let i = 0; i < EDITS; i++) {
    const r = await controllerEdit()
    controller.served.push(r.served)
    controller.told.push(r.told)
  }
  restarts.push(await restart(copy))

  const view = { served: [] as number[], told: [] as number[] }
  let mark = 'the demo app of fw'
  for (let i = 0; i < EDITS; i++) {
    const next = `the demo app of fw (view edit ${i})`
    const told = stream.next()
    const at = performance.now()
    copy.replace('views/home.eta', mark, next)
    mark = next
    view.served.push(
      await timeUntil(async () => (await (await fetch(url)).text()).includes(next), 'view edit'),
    )
    view.told.push((await told) - at)
  }
  restarts.push(await restart(copy))

  const plugin: number[] = []
  for (let i = 0; i < 5; i++) {
    const at = performance.now()
    const told = stream.next()
    copy.replace(
      'plugin.ts',
      i === 0 ? '    declareRoutes(kernel)\n' : `reply.header('x-bench', '${i - 1}')`,
      i === 0
        ? "    declareRoutes(kernel)\n    kernel.hooks.annotate.tap('bench', (reply) => void reply.header('x-bench', '0'))\n"
        : `reply.header('x-bench', '${i}')`,
    )
    await timeUntil(
      async () => (await fetch(`${url}/_demo/ping`)).headers.get('x-bench') === String(i),
      'plugin edit',
    )
    plugin.push(performance.now() - at)
    await told
    reloads += 1
  }
  const afterForty = usage(pid)
  while (reloads < RELOADS) {
    await controllerEdit()
  }
  // Let the collector catch up, as it would between two saves.
  await new Promise((resolve) => setTimeout(resolve, 2000))
  const after = usage(pid)
  stream.close()
  restarts.push(await restart(copy))

  console.log('save → served (first request answering the new code):')
  line('controller (controllers/demo.ts)', controller.served, 'p50 < 150, p95 < 300')
  line('view (views/home.eta)', view.served, 'p50 < 150, p95 < 300')
  line('plugin setup (plugin.ts)', plugin, '< 1000')
  console.log('save → open page told to reload (reload event):')
  line('controller', controller.told)
  line('view', view.told)
  const restartMs = median(restarts)
  console.log(
    `baseline: full restart of fw serve, spawn → first 200: median ${restartMs.toFixed(0)} ms over ${restarts.length} (in-memory data lost)`,
  )
  console.log(
    `ratio: restart / controller reload p50 = ${(restartMs / percentile(controller.served, 50)).toFixed(1)}x`,
  )
  console.log(
    `memory: RSS ${start.rssMb.toFixed(0)} MB at start, ${afterForty.rssMb.toFixed(0)} MB after ${EDITS + 5} rebuilds, ${after.rssMb.toFixed(0)} MB after ${reloads} rebuilds (+${EDITS} view saves): growth ${(after.rssMb - start.rssMb).toFixed(1)} MB (target < 50 MB)`,
  )
  console.log(
    `server CPU: ${((after.cpuMs - start.cpuMs) / (reloads + EDITS)).toFixed(0)} ms per save (rebuild and the polling requests around it)`,
  )
} finally {
  await app?.stop()
  copy.remove()
}
