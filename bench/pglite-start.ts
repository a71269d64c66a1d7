// How long an embedded database takes to start: PGlite's binary as it ships (its 128 MB buffer
// pool, which its start writes in full) against the binary fw compiles (plugins/database/
// pglite-wasm.ts: a 16 MB pool), in the same run, interleaved. Each start is a fresh process
// (as `fw dev`, `fw serve` and a test file start one): PGlite created on an existing data
// directory, in memory from the same directory's tarball, and in memory seeded with the same
// directory's files (plugins/database/pglite-seed.ts, how fw opens pglite://memory), then one
// query. Reported per binary: the median wall time of `PGlite.create` + the query, and the
// process's CPU time over the same span (every thread). Targets: fw's binary ≤ 0.8× the shipped
// one's wall time; seeded ≤ 0.7× the tarball's.
// Run: node --import tsx -C fw-source bench/pglite-start.ts   FW_BENCH_ROUNDS=<n> (default 7)
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MemoryFS, PGlite } from '@electric-sql/pglite'
import { clusterFiles, seededFs } from '../plugins/database/pglite-seed.js'
import { pgliteWasm } from '../plugins/database/pglite-wasm.js'
import { formatRatio, median } from './lib/stats.js'

const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 7)
const BINARIES = ['shipped', 'fw'] as const
const PLACES = ['directory', 'memory', 'seeded'] as const
type Binary = (typeof BINARIES)[number]
type Place = (typeof PLACES)[number]

/** In the child: one start, printed as `{ wallMs, cpuMs }`. */
async function child(binary: Binary, place: Place, dir: string): Promise<void> {
  const image = place === 'memory' ? new Blob([readFileSync(join(dir, 'image.tar'))]) : undefined
  const files = place === 'seeded' ? clusterFiles(join(dir, 'seed')) : undefined
  // The span includes reading and compiling the binary: PGlite does both inside `create`.
  const cpu = process.cpuUsage()
  const at = performance.now()
  const wasmModule = binary === 'fw' ? ((await pgliteWasm()) as WebAssembly.Module) : undefined
  const db = await PGlite.create({
    ...(place === 'directory' ? { dataDir: join(dir, 'data') } : {}),
    ...(place === 'memory' ? { loadDataDir: image! } : {}),
    ...(place === 'seeded' ? { fs: seededFs(MemoryFS, files!) } : {}),
    ...(wasmModule === undefined ? {} : { wasmModule }),
  })
  await db.query('select count(*) from pg_class')
  const wallMs = performance.now() - at
  const used = process.cpuUsage(cpu)
  await db.close()
  console.log(JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000 }))
}

function start(binary: Binary, place: Place, dir: string): { wallMs: number; cpuMs: number } {
  const self = fileURLToPath(import.meta.url)
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', self, 'child', binary, place, dir],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`${binary} ${place} start failed:\n${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as { wallMs: number; cpuMs: number }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-pglite-'))
  try {
    const made = await PGlite.create(join(dir, 'data'))
    const image = await made.dumpDataDir('none')
    await made.close()
    writeFileSync(join(dir, 'image.tar'), Buffer.from(await image.arrayBuffer()))
    cpSync(join(dir, 'data'), join(dir, 'seed'), { recursive: true })
    const runs = new Map<string, { wall: number[]; cpu: number[] }>()
    for (let round = 0; round < ROUNDS; round++)
      for (const place of PLACES)
        for (const binary of round % 2 === 0 ? BINARIES : [...BINARIES].reverse()) {
          const { wallMs, cpuMs } = start(binary, place, dir)
          const key = `${place} ${binary}`
          const seen = runs.get(key) ?? { wall: [], cpu: [] }
          seen.wall.push(wallMs)
          seen.cpu.push(cpuMs)
          runs.set(key, seen)
        }
    for (const place of PLACES) {
      const [shipped, fw] = BINARIES.map((b) => runs.get(`${place} ${b}`)!)
      const line = (b: Binary, r: { wall: number[]; cpu: number[] }) =>
        `${b.padEnd(8)} wall ${median(r.wall).toFixed(0).padStart(5)} ms  cpu ${median(r.cpu).toFixed(0).padStart(5)} ms`
      console.log(`${place} (${ROUNDS} starts each)`)
      console.log(`  ${line('shipped', shipped!)}`)
      console.log(`  ${line('fw', fw!)}`)
      console.log(
        `  fw / shipped: wall ${formatRatio(median(fw!.wall) / median(shipped!.wall))}, cpu ${formatRatio(median(fw!.cpu) / median(shipped!.cpu))}`,
      )
    }
    const [tarball, seeded] = ['memory', 'seeded'].map((p) => runs.get(`${p} fw`)!)
    console.log(
      `seeded / memory (fw's binary): wall ${formatRatio(median(seeded!.wall) / median(tarball!.wall))}, cpu ${formatRatio(median(seeded!.cpu) / median(tarball!.cpu))}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === 'child') {
  await child(process.argv[3] as Binary, process.argv[4] as Place, process.argv[5]!)
} else {
  await main()
}
