// Upload throughput of the uploads plugin against @fastify/multipart, each writing the same
// generated file to disk (issue target: ≥ 0.9×), in interleaved rounds in one run: MB/s by wall
// time and the server's CPU per MB; then one 1 GiB upload to fw with its server's RSS before and
// at its peak (target: flat, not growing with the file). Both servers are child processes; the
// client streams from this process in 64 KiB chunks.
// Run: node --import tsx -C fw-source bench/uploads.ts   FW_BENCH_UPLOAD_MB=<size per upload>
//      FW_BENCH_UPLOAD_ROUNDS=<n>   FW_BENCH_UPLOAD_BIG_MB=<the RSS upload's size, 1024>
import { request } from 'node:http'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { startServer, type ServerChild } from './lib/child-server.js'
import { formatRatio, median } from './lib/stats.js'
import { writeFilePart } from './lib/upload-body.mjs'

const MiB = 1024 * 1024
const size = Number(process.env.FW_BENCH_UPLOAD_MB ?? 100) * MiB
const rounds = Number(process.env.FW_BENCH_UPLOAD_ROUNDS ?? 5)
const bigSize = Number(process.env.FW_BENCH_UPLOAD_BIG_MB ?? 1024) * MiB
const BOUNDARY = '----fw-bench-upload'

/** Streams one generated file of `bytes` to `url` as multipart; resolves with the JSON answer. */
function upload(url: string, bytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    })
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(text))))
    })
    req.write(
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="f.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    )
    writeFilePart(req, bytes, Buffer.alloc(64 * 1024, 'fw-bench-upload-'), BOUNDARY)
  })
}

/** One timed upload: MB/s by wall time and the server's CPU ms per MB. */
async function measure(
  server: ServerChild,
  bytes: number,
): Promise<{ mbps: number; cpuPerMb: number }> {
  const cpu0 = await server.cpu()
  const t0 = performance.now()
  await upload(`${server.url}/upload`, bytes)
  const seconds = (performance.now() - t0) / 1000
  const cpu1 = await server.cpu()
  const cpuMs = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / 1000
  return { mbps: bytes / MiB / seconds, cpuPerMb: cpuMs / (bytes / MiB) }
}

const fw = await startServer('fw', './upload-server-fw.ts')
const fastify = await startServer('fastify', './upload-server-fastify.ts')
console.log(
  `uploads: ${size / MiB} MiB per upload, ${rounds} interleaved rounds, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
for (const server of [fw, fastify]) await upload(`${server.url}/upload`, 4 * MiB) // warm
const results = {
  fw: [] as { mbps: number; cpuPerMb: number }[],
  fastify: [] as { mbps: number; cpuPerMb: number }[],
}
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? [fw, fastify] : [fastify, fw]
  for (const server of order)
    results[server.name as 'fw' | 'fastify'].push(await measure(server, size))
}
const mbps = (name: 'fw' | 'fastify') => median(results[name].map((r) => r.mbps))
const cpu = (name: 'fw' | 'fastify') => median(results[name].map((r) => r.cpuPerMb))
console.log(`  fw       ${mbps('fw').toFixed(0)} MB/s   server CPU ${cpu('fw').toFixed(2)} ms/MB`)
console.log(
  `  fastify  ${mbps('fastify').toFixed(0)} MB/s   server CPU ${cpu('fastify').toFixed(2)} ms/MB`,
)
console.log(
  `  ratio fw/fastify: throughput ${formatRatio(mbps('fw') / mbps('fastify'))} (target ≥ 0.90), CPU per MB ${formatRatio(cpu('fastify') / cpu('fw'))} (fastify's over fw's)`,
)

const rss = async (server: ServerChild) =>
  JSON.parse(
    await new Promise<string>((resolve, reject) =>
      request(`${server.url}/rss`, (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve(text))
      })
        .on('error', reject)
        .end(),
    ),
  ) as { rss: number; peak: number }
await rss(fw)
const before = (await rss(fw)).rss
await upload(`${fw.url}/upload`, bigSize)
const after = await rss(fw)
console.log(
  `  fw RSS over a ${bigSize / MiB} MiB upload: ${(before / MiB).toFixed(0)} MB before, peak ${(after.peak / MiB).toFixed(0)} MB (+${((after.peak - before) / MiB).toFixed(0)} MB), ${(after.rss / MiB).toFixed(0)} MB after`,
)
await fw.stop()
await fastify.stop()
