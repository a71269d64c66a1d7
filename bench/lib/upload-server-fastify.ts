// Fastify 5 with @fastify/multipart receiving one file per POST /upload, written to a file with
// `pipeline(part.file, createWriteStream(…))` as its README shows, then removed (as fw removes its
// temporary file at the request's end). Started by bench/uploads.ts as a child process.
import multipart from '@fastify/multipart'
import Fastify from 'fastify'
import { randomUUID } from 'node:crypto'
import { createWriteStream, mkdtempSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { announce } from './server-ipc.js'
import { readRss } from './upload-rss.js'

const GiB = 1024 ** 3
const folder = mkdtempSync(join(tmpdir(), 'fw-bench-fastify-'))
const app = Fastify({ logger: false, bodyLimit: 2 * GiB })
await app.register(multipart, { limits: { fileSize: 2 * GiB } })
app.post('/upload', async (req) => {
  const part = await req.file()
  if (part === undefined) throw new Error('no file')
  const path = join(folder, randomUUID())
  await pipeline(part.file, createWriteStream(path))
  const size = part.file.bytesRead
  await unlink(path)
  return { size }
})
app.get('/rss', async () => readRss())
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as AddressInfo).port, () => void app.close())
