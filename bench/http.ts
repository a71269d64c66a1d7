// HTTP throughput on loopback: the fw kernel (a route in a middleware group, an annotate tap
// reading the event log) against bare polka answering the same JSON. Each server runs in its own
// child process and autocannon loads it from this one; warm-up ~2 s each, then 3 rounds of ~5 s
// alternating polka / fw. Prints req/s per run, the medians and fw/polka (target ≥ 0.85), plus
// the server's CPU time per request, which does not depend on whether the load generator kept up
// or other processes took the cores (on a 2-core machine they often do: then req/s is loose).
// Run: node --import tsx -C fw-source bench/http.ts
//      FW_BENCH_HTTP_SECONDS=<s> FW_BENCH_HTTP_ROUNDS=<n> change the measured time and the rounds.
import autocannon from 'autocannon'
import { startServer, type ServerChild } from './lib/child-server.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET = 0.85
/** Below this share of a core, a server was not what limited the request rate. */
const SATURATED = 0.85
const SECONDS = Number(process.env.FW_BENCH_HTTP_SECONDS ?? 5)
const ROUNDS = Number(process.env.FW_BENCH_HTTP_ROUNDS ?? 3)
const WARMUP_SECONDS = 2
const CONNECTIONS = 50
const PATH = '/_demo/ping'
const EXPECTED = '{"hello":"world","n":1}'

interface Run {
  readonly rps: number
  /** Server CPU time per request, in microseconds. */
  readonly cpuPerRequest: number
  /** The server's CPU use over the run, as a share of one core (~1: it was the bottleneck). */
  readonly serverCpu: number
  /** This process's (the load generator's) CPU use over the run, as a share of one core. */
  readonly loadgenCpu: number
}

async function check(server: ServerChild): Promise<void> {
  const res = await fetch(server.url + PATH)
  const body = await res.text()
  if (
    res.status !== 200 ||
    body !== EXPECTED ||
    !res.headers.get('content-type')?.startsWith('application/json')
  ) {
    throw new Error(
      `${server.name} answered ${res.status} ${res.headers.get('content-type')} ${body}; expected 200 JSON ${EXPECTED}`,
    )
  }
  // The fw app's annotate tap counts the phases in the log: routing, action, middleware.
  if (server.name === 'fw' && res.headers.get('x-fw-phases') !== '3') {
    throw new Error(
      `fw answered x-fw-phases: ${res.headers.get('x-fw-phases')}; expected 3 (the log is not recorded or not read)`,
    )
  }
}

async function load(server: ServerChild, seconds: number): Promise<Run> {
  const cpuBefore = await server.cpu()
  const ownBefore = process.cpuUsage()
  const wallBefore = performance.now()
  // duration bounds the run: autocannon stops by itself.
  const result = await autocannon({
    url: server.url + PATH,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
  })
  const wall = performance.now() - wallBefore
  const own = process.cpuUsage(ownBefore)
  const cpuAfter = await server.cpu()
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${server.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`,
    )
  }
  const total = result.requests.total
  const serverCpu = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system
  return {
    rps: total / result.duration,
    cpuPerRequest: serverCpu / total,
    serverCpu: serverCpu / 1000 / wall,
    loadgenCpu: (own.user + own.system) / 1000 / wall,
  }
}

function describe(name: string, run: Run): string {
  const pct = (share: number): string => `${Math.round(share * 100)}%`.padStart(4)
  return (
    `${name.padEnd(5)} ${formatInt(run.rps).padStart(8)} req/s   server ${run.cpuPerRequest.toFixed(1).padStart(5)} µs CPU/req, ` +
    `${pct(run.serverCpu)} of a core   load generator ${pct(run.loadgenCpu)} of a core`
  )
}

async function main(): Promise<void> {
  console.log(
    `http: ${CONNECTIONS} connections, pipelining 1, ${WARMUP_SECONDS} s warm-up, ${ROUNDS} × ${SECONDS} s per server, GET ${PATH} on 127.0.0.1`,
  )
  const servers: ServerChild[] = []
  try {
    const polka = await startServer('polka', './server-polka.ts')
    servers.push(polka)
    const fw = await startServer('fw', './server-fw.ts')
    servers.push(fw)
    for (const server of servers) {
      await check(server)
      await load(server, WARMUP_SECONDS)
    }
    const runs: Record<'polka' | 'fw', Run[]> = { polka: [], fw: [] }
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which goes first so a slow spell of the machine does not always hit the same one.
      const order = round % 2 === 1 ? [polka, fw] : [fw, polka]
      for (const server of order) {
        const run = await load(server, SECONDS)
        runs[server.name as 'polka' | 'fw'].push(run)
        console.log(`  round ${round}  ${describe(server.name, run)}`)
      }
      console.log(
        `  round ${round}  fw/polka ${formatRatio(runs.fw.at(-1)!.rps / runs.polka.at(-1)!.rps)}`,
      )
    }
    const rps = {
      polka: median(runs.polka.map((r) => r.rps)),
      fw: median(runs.fw.map((r) => r.rps)),
    }
    const cpu = {
      polka: median(runs.polka.map((r) => r.cpuPerRequest)),
      fw: median(runs.fw.map((r) => r.cpuPerRequest)),
    }
    console.log(
      `  median polka ${formatInt(rps.polka)} req/s (${cpu.polka.toFixed(1)} µs CPU/req), fw ${formatInt(rps.fw)} req/s (${cpu.fw.toFixed(1)} µs CPU/req)`,
    )
    console.log(
      `  server CPU per request: polka/fw = ${formatRatio(cpu.polka / cpu.fw)} (what fw/polka in req/s tends to when the server is the bottleneck)`,
    )
    const busiest = Math.min(
      median(runs.polka.map((r) => r.serverCpu)),
      median(runs.fw.map((r) => r.serverCpu)),
    )
    if (busiest < SATURATED) {
      // Req/s then measures the machine (other processes, the load generator) as much as the server.
      console.log(
        `  note: a server used only ${Math.round(busiest * 100)}% of a core (median): it was not the bottleneck, so the req/s ratio is loose; the CPU ratio above holds`,
      )
    }
    console.log(
      `http: fw/polka = ${formatRatio(rps.fw / rps.polka)} (target ≥ ${TARGET}) fw=${formatInt(rps.fw)}/s polka=${formatInt(rps.polka)}/s; ` +
        `CPU/req polka/fw = ${formatRatio(cpu.polka / cpu.fw)}`,
    )
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

await main()
