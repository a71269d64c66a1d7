// One load round on a server answering GET /_demo/ping, as http.ts and playground-http.ts run it:
// autocannon from this process, the server's CPU time read from the child before and after.
import autocannon from 'autocannon'
import { performance } from 'node:perf_hooks'
import type { CpuTime } from './child-server.js'

/** The route both benchmarks load, and its body. */
export const PING_PATH = '/_demo/ping'
export const PING_BODY = '{"hello":"world","n":1}'

/** A server under load: a child that tells its CPU time. */
export interface LoadedServer {
  readonly name: string
  readonly url: string
  cpu(): Promise<CpuTime>
}

/** What one round measured. */
export interface LoadRun {
  readonly rps: number
  /** Server CPU time per request, in microseconds. */
  readonly cpuPerRequest: number
  /** The server's CPU use over the run, as a share of one core (~1: it was the bottleneck). */
  readonly serverCpu: number
  /** This process's (the load generator's) CPU use over the run, as a share of one core. */
  readonly loadgenCpu: number
  /** The other (idle) servers' CPU use over the run, as a share of one core. */
  readonly othersCpu: number
}

/** Throws unless the server answers the ping with 200, JSON and the expected body. */
export async function checkPing(server: LoadedServer): Promise<Response> {
  const res = await fetch(server.url + PING_PATH)
  const body = await res.text()
  if (
    res.status !== 200 ||
    body !== PING_BODY ||
    !res.headers.get('content-type')?.startsWith('application/json')
  ) {
    throw new Error(
      `${server.name} answered ${res.status} ${res.headers.get('content-type')} ${body}; expected 200 JSON ${PING_BODY}`,
    )
  }
  return res
}

async function totalCpu(servers: readonly LoadedServer[]): Promise<number> {
  const times = await Promise.all(servers.map((s) => s.cpu()))
  return times.reduce((sum, t) => sum + t.user + t.system, 0)
}

/**
 * Loads `server` with the ping for `seconds` (autocannon stops by itself) over `connections`;
 * `others` are the servers left idle meanwhile, whose CPU use is reported too. Throws on any
 * error, timeout or non-2xx answer.
 */
export async function loadPing(
  server: LoadedServer,
  {
    seconds,
    connections,
    others = [],
  }: {
    seconds: number
    connections: number
    others?: readonly LoadedServer[]
  },
): Promise<LoadRun> {
  const { run } = await measureLoad(
    server,
    () =>
      autocannon({ url: server.url + PING_PATH, connections, pipelining: 1, duration: seconds }),
    others,
  )
  return run
}

/**
 * Runs `load` on `server` and measures it: req/s, the server's CPU time per request, and the
 * shares of a core the server, this process and `others` (left idle meanwhile) used. Throws on
 * any error, timeout or non-2xx answer.
 */
export async function measureLoad(
  server: LoadedServer,
  load: () => Promise<autocannon.Result>,
  others: readonly LoadedServer[] = [],
): Promise<{ run: LoadRun; result: autocannon.Result }> {
  const [cpuBefore, othersBefore] = await Promise.all([server.cpu(), totalCpu(others)])
  const ownBefore = process.cpuUsage()
  const wallBefore = performance.now()
  const result = await load()
  const wall = performance.now() - wallBefore
  const own = process.cpuUsage(ownBefore)
  const [cpuAfter, othersAfter] = await Promise.all([server.cpu(), totalCpu(others)])
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${server.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses (${JSON.stringify(result.statusCodeStats)})`,
    )
  }
  const total = result.requests.total
  const serverCpu = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system
  const run: LoadRun = {
    rps: total / result.duration,
    cpuPerRequest: serverCpu / total,
    serverCpu: serverCpu / 1000 / wall,
    loadgenCpu: (own.user + own.system) / 1000 / wall,
    othersCpu: (othersAfter - othersBefore) / 1000 / wall,
  }
  return { run, result }
}
