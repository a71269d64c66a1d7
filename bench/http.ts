// HTTP throughput on loopback: the fw kernel against bare polka answering the same JSON. `fw` is
// the kernel with what it runs on every request (maintenance probe, route hook, event log recording)
// and an annotate tap reading the log; `fw+mw` adds three application middleware around the route.
// Each server runs in its own child process and autocannon loads it from this one; warm-up ~2 s
// each, then 3 rounds of ~5 s rotating the order. Prints req/s per run, the medians and
// fw/polka (target ≥ 0.85, for `fw`; `fw+mw` is printed beside it), plus
// the server's CPU time per request, which does not depend on whether the load generator kept up
// or other processes took the cores (on a 2-core machine they often do: then req/s is loose).
// Run: node --import tsx -C fw-source bench/http.ts
//      FW_BENCH_HTTP_SECONDS=<s> FW_BENCH_HTTP_ROUNDS=<n> change the measured time and the rounds.
import { startServer, type ServerChild } from './lib/child-server.js'
import { checkPing, loadPing, PING_PATH as PATH, type LoadRun } from './lib/ping-load.js'
import { formatInt, formatRatio, median } from './lib/stats.js'

const TARGET = 0.85
/** Below this share of a core, a server was not what limited the request rate. */
const SATURATED = 0.85
const SECONDS = Number(process.env.FW_BENCH_HTTP_SECONDS ?? 5)
const ROUNDS = Number(process.env.FW_BENCH_HTTP_ROUNDS ?? 3)
const WARMUP_SECONDS = 2
const CONNECTIONS = 50

type Run = LoadRun

async function check(server: ServerChild): Promise<void> {
  const res = await checkPing(server)
  // The fw app's annotate tap counts the phases in the log: routing, action (and middleware).
  const phases = server.name === 'fw' ? '2' : server.name === 'fw+mw' ? '3' : null
  if (phases !== null && res.headers.get('x-fw-phases') !== phases) {
    throw new Error(
      `${server.name} answered x-fw-phases: ${res.headers.get('x-fw-phases')}; expected ${phases} (the log is not recorded or not read)`,
    )
  }
}

const load = (server: ServerChild, seconds: number): Promise<Run> =>
  loadPing(server, { seconds, connections: CONNECTIONS })

function describe(name: string, run: Run): string {
  const pct = (share: number): string => `${Math.round(share * 100)}%`.padStart(4)
  return (
    `${name.padEnd(6)} ${formatInt(run.rps).padStart(8)} req/s   server ${run.cpuPerRequest.toFixed(1).padStart(5)} µs CPU/req, ` +
    `${pct(run.serverCpu)} of a core   load generator ${pct(run.loadgenCpu)} of a core`
  )
}

type Name = 'polka' | 'fw' | 'fw+mw'

async function main(): Promise<void> {
  console.log(
    `http: ${CONNECTIONS} connections, pipelining 1, ${WARMUP_SECONDS} s warm-up, ${ROUNDS} × ${SECONDS} s per server, GET ${PATH} on 127.0.0.1`,
  )
  const servers: ServerChild[] = []
  try {
    servers.push(await startServer('polka', './server-polka.ts'))
    servers.push(await startServer('fw', './server-fw.ts'))
    servers.push(
      await startServer('fw+mw', './server-fw.ts', [], 20_000, { FW_BENCH_MIDDLEWARE: '1' }),
    )
    for (const server of servers) {
      await check(server)
      await load(server, WARMUP_SECONDS)
    }
    const runs: Record<Name, Run[]> = { polka: [], fw: [], 'fw+mw': [] }
    for (let round = 1; round <= ROUNDS; round++) {
      // Rotate the order so a slow spell of the machine does not always hit the same server.
      const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]!)
      for (const server of order) {
        const run = await load(server, SECONDS)
        runs[server.name as Name].push(run)
        console.log(`  round ${round}  ${describe(server.name, run)}`)
      }
      const last = (n: Name): number => runs[n].at(-1)!.rps
      console.log(
        `  round ${round}  fw/polka ${formatRatio(last('fw') / last('polka'))}  fw+mw/polka ${formatRatio(last('fw+mw') / last('polka'))}`,
      )
    }
    const rps = (n: Name): number => median(runs[n].map((r) => r.rps))
    const cpu = (n: Name): number => median(runs[n].map((r) => r.cpuPerRequest))
    for (const n of ['polka', 'fw', 'fw+mw'] as const) {
      console.log(
        `  median ${n.padEnd(6)} ${formatInt(rps(n)).padStart(8)} req/s (${cpu(n).toFixed(1)} µs CPU/req)`,
      )
    }
    console.log(
      `  server CPU per request: polka/fw = ${formatRatio(cpu('polka') / cpu('fw'))}, polka/fw+mw = ${formatRatio(cpu('polka') / cpu('fw+mw'))} (what the req/s ratios tend to when the server is the bottleneck)`,
    )
    const busiest = Math.min(
      ...servers.map((s) => median(runs[s.name as Name].map((r) => r.serverCpu))),
    )
    if (busiest < SATURATED) {
      // Req/s then measures the machine (other processes, the load generator) as much as the server.
      console.log(
        `  note: a server used only ${Math.round(busiest * 100)}% of a core (median): it was not the bottleneck, so the req/s ratio is loose; the CPU ratio above holds`,
      )
    }
    console.log(
      `http: fw/polka = ${formatRatio(rps('fw') / rps('polka'))} (target ≥ ${TARGET}) fw=${formatInt(rps('fw'))}/s polka=${formatInt(rps('polka'))}/s; ` +
        `CPU/req polka/fw = ${formatRatio(cpu('polka') / cpu('fw'))}; with 3 middleware fw+mw/polka = ${formatRatio(rps('fw+mw') / rps('polka'))} (CPU ${formatRatio(cpu('polka') / cpu('fw+mw'))})`,
    )
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

await main()
