// Server-sent events at scale: 10,000 idle subscribers on one process. For each server, in a child
// process of its own (run with --expose-gc): RSS after a full GC before and after the subscribers
// connected, divided by their number (target ≤ 20 KB per idle subscriber), then the time from a
// publish request until every subscriber has read the event (five broadcasts; target ≤ 1 s).
// Servers, in one run:
// - `bare`: node:http holding each response open and writing the event to each (the floor: what
//   an idle HTTP connection and a broadcast loop cost in Node, with nothing of fw);
// - `fw`: an fw kernel with the realtime plugin, delivering in process;
// - `fw+pg`, when DATABASE_URL names a PostgreSQL server: the same through NOTIFY/LISTEN.
// Prints each server's figures and fw's ratios to the floor. The subscribers are raw sockets in
// this process (one process holds 10,000 sockets; the child another 10,000: `ulimit -n` ≥ 20,500).
// Run: node --import tsx -C fw-source bench/sse.ts   (SSE_BENCH_SUBSCRIBERS=… to change the count)
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { formatInt, formatRatio, median, sleep } from './lib/stats.js'

const SUBSCRIBERS = Number(process.env.SSE_BENCH_SUBSCRIBERS ?? 10_000)
const BROADCASTS = 5
const TARGET_KB = 20
const TARGET_MS = 1000
const here = fileURLToPath(import.meta.url)

type Kind = 'bare' | 'fw' | 'fw+pg'

/** The child: a server of `kind` on a free port, printing `port <n>`. */
async function serve(kind: Kind): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!
  const memory = (): string => {
    gc()
    gc()
    return JSON.stringify({ rss: process.memoryUsage().rss })
  }
  let port: number
  if (kind === 'bare') {
    const open = new Set<http.ServerResponse>()
    const server = http.createServer((req, res) => {
      if (req.url === '/memory') return void res.end(memory())
      if (req.url === '/publish') {
        const frame = Buffer.from(`id: 1\nevent: tick\ndata: {"at":${Date.now()}}\n\n`)
        for (const r of open) r.write(frame)
        return void res.end('{}')
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
      res.write('retry: 2000\n\n')
      open.add(res)
      res.on('close', () => open.delete(res))
    })
    server.maxConnections = Infinity
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as net.AddressInfo).port
  } else {
    const { createKernel, json, text } = await import('fw')
    const { default: realtime } = await import('fw/plugins/realtime')
    const { default: database } = await import('fw/plugins/database')
    const kernel = createKernel({
      root: process.cwd(),
      env: {},
      config: { development: false, realtime: { max_subscribers: 1_000_000 } } as never,
    })
    if (kind === 'fw+pg')
      kernel.register(database, { url: process.env.DATABASE_URL!, entities: [] })
    kernel.register(realtime, { channels: { ticks: { authorize: 'public' } } })
    kernel.router.get('memory', () => text(memory()))
    kernel.router.get('publish', async (ctx) =>
      json(await kernel.plugin('realtime').publish('ticks', 'tick', { at: Date.now() }, ctx)),
    )
    port = (await kernel.listen(0, '127.0.0.1')).port
  }
  process.stdout.write(`port ${port}\n`)
}

/** Starts the child of `kind`; resolves with its port. */
function start(kind: Kind): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '-C', 'fw-source', here, '--serve', kind],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  )
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const port = /port (\d+)/.exec(out)?.[1]
      if (port !== undefined) resolve({ child, port: Number(port) })
    })
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}: ${out}`)))
  })
}

async function get(port: number, path: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`)
  return res.text()
}

/** The subscribers: raw sockets counting `event: tick` frames. */
class Subscribers {
  readonly sockets: net.Socket[] = []
  received = 0

  async open(port: number, count: number): Promise<void> {
    const request = `GET /events/ticks HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n`
    const bare = `GET /ticks HTTP/1.1\r\nHost: bench\r\n\r\n`
    for (let done = 0; done < count;) {
      const batch = Math.min(500, count - done)
      await Promise.all(
        Array.from(
          { length: batch },
          () =>
            new Promise<void>((resolve, reject) => {
              const socket = net.connect(port, '127.0.0.1')
              socket.setEncoding('latin1')
              socket.once('error', reject)
              socket.once('connect', () => socket.write(this.bare ? bare : request))
              let head = true
              socket.on('data', (chunk: string) => {
                if (head && chunk.includes('200 OK')) {
                  head = false
                  resolve()
                }
                for (let at = chunk.indexOf('event: tick'); at !== -1;) {
                  this.received++
                  at = chunk.indexOf('event: tick', at + 1)
                }
              })
              this.sockets.push(socket)
            }),
        ),
      )
      done += batch
    }
  }

  bare = false

  close(): void {
    for (const s of this.sockets) s.destroy()
  }
}

interface Figures {
  readonly kind: Kind
  readonly perSubscriberKb: number
  readonly broadcastMs: number[]
}

async function measure(kind: Kind): Promise<Figures> {
  const { child, port } = await start(kind)
  const subscribers = new Subscribers()
  subscribers.bare = kind === 'bare'
  try {
    await sleep(500)
    const before = JSON.parse(await get(port, '/memory')) as { rss: number }
    await subscribers.open(port, SUBSCRIBERS)
    await sleep(1000)
    const after = JSON.parse(await get(port, '/memory')) as { rss: number }
    const broadcastMs: number[] = []
    for (let i = 1; i <= BROADCASTS; i++) {
      const started = performance.now()
      await get(port, '/publish')
      while (subscribers.received < SUBSCRIBERS * i) await new Promise((r) => setImmediate(r))
      broadcastMs.push(performance.now() - started)
      await sleep(200)
    }
    return { kind, perSubscriberKb: (after.rss - before.rss) / SUBSCRIBERS / 1024, broadcastMs }
  } finally {
    subscribers.close()
    child.kill('SIGKILL')
  }
}

async function main(): Promise<void> {
  const kinds: Kind[] = ['bare', 'fw']
  if (/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')) kinds.push('fw+pg')
  console.log(
    `sse: ${formatInt(SUBSCRIBERS)} idle subscribers per server, ${BROADCASTS} broadcasts; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const figures: Figures[] = []
  for (const kind of kinds) {
    const f = await measure(kind)
    figures.push(f)
    console.log(
      `  ${kind.padEnd(6)} RSS per idle subscriber ${f.perSubscriberKb.toFixed(1)} KB (target ≤ ${TARGET_KB}); broadcast to all: median ${formatInt(median(f.broadcastMs))} ms, max ${formatInt(Math.max(...f.broadcastMs))} ms (target ≤ ${TARGET_MS})`,
    )
  }
  const bare = figures[0]!
  for (const f of figures.slice(1))
    console.log(
      `  ${f.kind} / bare: memory ${formatRatio(f.perSubscriberKb / bare.perSubscriberKb)}×, broadcast ${formatRatio(median(f.broadcastMs) / median(bare.broadcastMs))}×`,
    )
  console.log(
    `  load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
}

const at = process.argv.indexOf('--serve')
if (at !== -1) await serve(process.argv[at + 1] as Kind)
else await main()
