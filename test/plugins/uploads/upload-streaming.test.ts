// Uploads over a real socket, as they stream: a 200 MB file goes to disk with the process's memory
// nearly flat, 50 uploads at once each land whole, and an upload the client aborts midway leaves
// no temporary file behind.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { Kernel } from 'fw'
import {
  BOUNDARY,
  filesUnder,
  generated,
  multipart,
  MULTIPART,
  post,
  uploadApp,
} from './upload-app.js'

const test = suite('upload streaming')

let kernel: Kernel
let tmp: string
let url: string
const MiB = 1024 * 1024

test.before(async () => {
  ;({ kernel, tmp } = uploadApp({ max_file_size: 300 * MiB, max_total_size: 300 * MiB }))
  await kernel.boot()
  url = (await kernel.listen(0, '127.0.0.1')).url
})
test.after(() => kernel.close())

/** Waits until `check` holds (the server settles an aborted request on its own time). */
async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return check()
}

/** POSTs a generated file of `size` bytes to `target` from a client process of its own. */
function uploadFromChild(target: string, size: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = fileURLToPath(new URL('upload-client.mjs', import.meta.url))
    execFile(process.execPath, [client, target, String(size)], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as { status: number; body: string }),
    )
  })
}

/** How far this process's RSS rose above its level before `run`, in MB, sampled every 20 ms. */
async function peakGrowth(run: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  await run()
  clearInterval(sampler)
  return (peak - before) / MiB
}

/**
 * The first large body a process reads raises its RSS by some 30 MB whatever reads it: the
 * socket's 64 KiB read buffers are collected late (V8 counts them as external memory), and a
 * plain `req.pipe(createWriteStream(…))` shows the same on Node 20. The process is warmed with a
 * 64 MiB upload first, so the 200 MB measure shows what grows with the size of an upload.
 */
test('streams a 200 MB file to disk with the RSS growing less than 30 MB', async () => {
  assert.is((await uploadFromChild(`${url}/files`, 64 * MiB)).status, 200)
  let res: { status: number; body: string } | undefined
  const growth = await peakGrowth(
    async () => (res = await uploadFromChild(`${url}/files`, 200 * MiB)),
  )
  assert.is(res?.status, 200)
  assert.equal(JSON.parse(res!.body).files, [
    { field: 'file', name: 'big.bin', size: 200 * MiB, type: null },
  ])
  assert.ok(growth < 30, `RSS peak growth ${growth.toFixed(1)} MB`)
  assert.equal(filesUnder(tmp), [])
})

test('takes 50 uploads at once, each whole', async () => {
  const sizes = Array.from({ length: 50 }, (_, i) => 100_000 + i * 997)
  const answers = await Promise.all(
    sizes.map((size, i) =>
      post(
        `${url}/files`,
        multipart([{ name: 'f', filename: `f${i}.bin`, body: generated(size) }]),
      ),
    ),
  )
  assert.equal(
    answers.map((a) => a.status),
    sizes.map(() => 200),
  )
  answers.forEach((a, i) =>
    assert.equal(a.body.files, [{ field: 'f', name: `f${i}.bin`, size: sizes[i], type: null }]),
  )
  assert.equal(filesUnder(tmp), [])
})

/** Sends the head of an upload and `bytes` of its file, then breaks the connection. */
function abortAfter(path: string, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': MULTIPART, 'content-length': String(10 * MiB) },
    })
    req.on('error', () => resolve())
    req.write(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="f"; filename="a.bin"\r\n\r\n`)
    req.write(Buffer.alloc(bytes, 9), () =>
      setTimeout(() => {
        req.destroy()
        resolve()
      }, 100),
    )
  })
}

test('an upload aborted midway leaves no temporary file', async () => {
  await abortAfter('/files', 3 * MiB)
  assert.ok(
    await eventually(() => filesUnder(tmp).length === 0),
    `left: ${filesUnder(tmp).join(', ')}`,
  )
  await abortAfter('/slow', 1 * MiB)
  assert.ok(
    await eventually(() => filesUnder(tmp).length === 0),
    `left: ${filesUnder(tmp).join(', ')}`,
  )
  // The server is still there for the next upload.
  const next = await post(
    `${url}/files`,
    multipart([{ name: 'f', filename: 'b.bin', body: generated(10) }]),
  )
  assert.is(next.status, 200)
})

test.run()
