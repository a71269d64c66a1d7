// Instructions per request of any HTTP server started with `node`, counted by valgrind's callgrind:
// a figure the load of the machine does not move (CPU time per request on these shared two-core
// machines scatters by ± 15% between runs of the same server). The server runs under callgrind
// with counting off and is warmed up by autocannon (`--warmup` × `--requests` requests); then two
// loads are counted, of `--requests` / 2 and of `--requests`, and the difference of their totals
// is divided by the difference of their sizes, so that what does not grow with the requests (the
// answers still in flight when autocannon stops a pipelined load, which it cuts off) cancels out.
// V8's compiler still at work meanwhile is reported and left out of the figure (`net`), and so is
// a major GC that falls inside a counted load (with a warning: count again). Node runs
// `--single-threaded`, so that no helper thread's work depends on timing. Not part of
// `npm run bench`; needs valgrind.
//
// Run: node bench/tools/count-instructions.mjs [--requests 20000] [--warmup 3] [--connections 16]
//        [--pipelining 1] <path> node [node options…] <server script>
//   The server gets `PORT` (and the environment) and must answer GET <path> on 127.0.0.1:
//   node bench/tools/count-instructions.mjs /json node bench/techempower/fastify.mjs
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

// The options before `node`; everything after it is the server's command line, untouched.
const argv = process.argv.slice(2)
const nodeAt = argv.indexOf('node')
const { values: options, positionals } = parseArgs({
  args: nodeAt === -1 ? argv : argv.slice(0, nodeAt),
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    pipelining: { type: 'string', default: '1' },
  },
  allowPositionals: true,
})
const [path] = positionals
const args = nodeAt === -1 ? [] : argv.slice(nodeAt + 1)
if (path === undefined || !path.startsWith('/') || positionals.length !== 1 || args.length === 0) {
  console.error(
    'usage: node bench/tools/count-instructions.mjs [--requests n] [--warmup n] [--connections n] [--pipelining n] <path> node [options…] <script>',
  )
  process.exit(2)
}
const REQUESTS = Number(options.requests)

/** A port nothing listens on. */
const port = await new Promise((resolve, reject) => {
  const probe = createServer().once('error', reject)
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = /** @type {import('node:net').AddressInfo} */ (probe.address())
    probe.close(() => resolve(free))
  })
})
const dir = mkdtempSync(join(tmpdir(), 'fw-instructions-'))
const out = join(dir, 'callgrind.out')
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    `--callgrind-out-file=${out}`,
    'node',
    '--single-threaded',
    ...args,
  ],
  { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] },
)
const stop = () => {
  // SIGKILL: callgrind has nothing left to write (counting is off), and no final dump into a
  // folder that is being removed.
  child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
process.on('exit', stop)
process.on('SIGINT', () => process.exit(130))

const url = `http://127.0.0.1:${port}${path}`
for (let i = 0; ; i++) {
  if (i === 600) throw new Error(`the server did not answer ${url} within 120 s`)
  if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`)
  try {
    if ((await globalThis.fetch(url)).ok) break
  } catch {
    // not listening yet
  }
  await sleep(200)
}

/**
 * `amount` requests of GET <path>; a non-2xx answer fails the count. A pipelined load ends with
 * the requests it had in flight cut off (autocannon counts them as errors): not a failure.
 */
const load = (amount) =>
  new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        amount,
        connections: Number(options.connections),
        pipelining: Number(options.pipelining),
      },
      (error, result) => {
        if (error) return reject(error)
        const cutOff = Number(options.pipelining) > 1 ? 0 : result.errors
        if (result.non2xx > 0 || cutOff > 0)
          return reject(new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`))
        resolve(result)
      },
    )
  })
const control = (...flags) =>
  execFileSync('callgrind_control', [...flags, String(child.pid)], { stdio: 'ignore' })

for (let i = 0; i < Number(options.warmup); i++) await load(REQUESTS)
const SMALL = Math.floor(REQUESTS / 2)
for (const amount of [SMALL, REQUESTS]) {
  control('-i', 'on')
  await load(amount)
  control('-i', 'off')
  control('-d')
}
await sleep(500)

/**
 * Instructions per function's own code, from a callgrind profile: the cost lines under each `fn=`,
 * less those right after a `calls=` line (a call's inclusive cost, counted at the callee too).
 */
function selfCosts(file) {
  const names = new Map()
  const costs = new Map()
  let fn = ''
  let callLine = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      const m = /^\((\d+)\)(?: (.*))?$/.exec(line.slice(3))
      if (m === null) fn = line.slice(3)
      else {
        if (m[2] !== undefined) names.set(m[1], m[2])
        fn = names.get(m[1]) ?? m[1]
      }
    } else if (line.startsWith('cfn=')) {
      const m = /^\((\d+)\) (.*)$/.exec(line.slice(4))
      if (m !== null) names.set(m[1], m[2])
    } else if (line.startsWith('calls=')) callLine = true
    else if (/^[0-9+*-]/.test(line)) {
      if (callLine) callLine = false
      else costs.set(fn, (costs.get(fn) ?? 0) + Number(line.split(' ')[1] ?? 0))
    }
  }
  return costs
}

/**
 * The functions of a major GC (mark-compact: marking, evacuation, sweeping). A scavenge is not one
 * of them: it comes with every few thousand requests and belongs to their cost.
 */
const MAJOR_GC =
  /MarkCompact|Marking|Sweeper|Evacuat|MigratedSlot|LiveObjectRange|RememberedSetUpdating|MarkBit/

/** Instructions in one dump of `-d`: all of them, V8's compiler's and a major GC's. */
function counted(file) {
  if (!existsSync(file)) throw new Error(`callgrind wrote no ${file}`)
  let total = 0
  let compiler = 0
  let majorGc = 0
  for (const [name, cost] of selfCosts(file)) {
    total += cost
    if (/v8::internal::(compiler|maglev)::|Compile/.test(name)) compiler += cost
    else if (MAJOR_GC.test(name)) majorGc += cost
  }
  return { total, compiler, majorGc }
}
const small = counted(`${out}.1`)
const large = counted(`${out}.2`)
const total = large.total - small.total
const compiler = large.compiler - small.compiler
const majorGc = large.majorGc - small.majorGc
const per = (n) => `${(n / (REQUESTS - SMALL) / 1000).toFixed(1)}k`
console.log(
  `${path}: ${per(total - compiler - majorGc)} instructions a request (net; total ${per(total)}, V8's compiler ${per(compiler)}, major GC ${per(majorGc)}), loads of ${SMALL} and ${REQUESTS} requests after ${Number(options.warmup) * REQUESTS}`,
)
// One mark-compact costs about as much as a few thousand requests: when it falls inside one load
// and not the other, it is spread over this load's requests (and the heap work around it, left in
// `net`, adds some 3k a request more). Count again for a figure to compare.
if (Math.abs(majorGc) > 0.01 * total)
  console.log(
    `  a major GC fell inside the counted loads (${per(majorGc)} a request of it): count again`,
  )
process.exit(0)
