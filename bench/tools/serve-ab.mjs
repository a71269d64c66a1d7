// A same-run A/B of HTTP servers answering GET /_demo/ping: each server a child process started
// from a command line, loaded in turn by autocannon (50 connections) in interleaved rounds, its
// CPU time per request read from /proc/<pid>/stat (Linux; all threads, GC included), for
// step-by-step comparisons of request-path changes. Not part of `npm run bench`.
//
// Run: node bench/tools/serve-ab.mjs <rounds> <seconds> 'name=[VAR=value …] command …' …
//   `$PORT` in a command is replaced by the server's port (also given as PORT). Each server must
//   answer GET /_demo/ping on 127.0.0.1. Example:
//   node bench/tools/serve-ab.mjs 7 3 \
//     'full=NODE_ENV=production DATABASE_URL=pglite:///tmp/db-a node dist/cli/bin.js serve --port $PORT --host 127.0.0.1' \
//     'kernel=NODE_ENV=production FW_APP=bench/lib/playground-variants.mjs FW_BENCH_SKIP=all node dist/cli/bin.js serve --port $PORT --host 127.0.0.1'
//   Give each server that opens PGlite a data directory of its own.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const [rounds, seconds, ...specs] = process.argv.slice(2)
if (!(Number(rounds) > 0) || !(Number(seconds) > 0) || specs.length === 0) {
  console.error("usage: node bench/tools/serve-ab.mjs <rounds> <seconds> 'name=command' …")
  process.exit(2)
}
const root = fileURLToPath(new URL('../..', import.meta.url))
const TICKS = 100 // USER_HZ: /proc times are in 1/100 s on Linux

/** @param {number} pid */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

let port = 7100
const servers = specs.map((spec) => {
  const at = spec.indexOf('=')
  const name = spec.slice(0, at)
  const parts = spec.slice(at + 1).split(' ')
  const env = { ...process.env }
  while (parts[0]?.includes('=')) {
    const [k, v] = /** @type {string} */ (parts.shift()).split(/=(.*)/s)
    env[k] = v
  }
  const p = port++
  env.PORT = String(p)
  const args = parts.map((a) => a.replace('$PORT', String(p)))
  const child = spawn(args[0], args.slice(1), {
    env,
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return {
    name,
    url: `http://127.0.0.1:${p}/_demo/ping`,
    child,
    runs: /** @type {{ rps: number, us: number }[]} */ ([]),
  }
})
const stop = () => servers.forEach((s) => s.child.kill())
process.on('exit', stop)
process.on('SIGINT', () => process.exit(130))

for (const s of servers) {
  for (let i = 0; ; i++) {
    if (i === 300) throw new Error(`${s.name} did not answer ${s.url}`)
    try {
      if ((await globalThis.fetch(s.url)).ok) break
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
}

/** @param {(typeof servers)[number]} s @param {number} duration */
const load = (s, duration) =>
  new Promise((resolve, reject) => {
    const before = cpuSeconds(/** @type {number} */ (s.child.pid))
    autocannon({ url: s.url, connections: 50, duration }, (error, result) => {
      if (error) return reject(error)
      const used = cpuSeconds(/** @type {number} */ (s.child.pid)) - before
      resolve({ rps: result.requests.average, us: (used * 1e6) / result.requests.total })
    })
  })

for (const s of servers) await load(s, 2) // warm-up: the JIT's first seconds
for (let r = 0; r < Number(rounds); r++) {
  for (let i = 0; i < servers.length; i++) {
    const s = servers[(i + r) % servers.length]
    s.runs.push(/** @type {{ rps: number, us: number }} */ (await load(s, Number(seconds))))
  }
}
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const s of servers) {
  const rps = Math.round(median(s.runs.map((x) => x.rps)))
  const us = median(s.runs.map((x) => x.us)).toFixed(1)
  const each = s.runs.map((x) => x.us.toFixed(1)).join(' ')
  console.log(
    `${s.name.padEnd(14)} ${String(rps).padStart(7)} req/s ${us.padStart(6)} µs CPU/req  rounds ${each}`,
  )
}
process.exit(0)
