// The uploads plugin through `kernel.inject()`: fields and files read from a multipart body, each
// file's type read from its content, `moveTo` into the uploads folder, the events of the log, and
// temporary files gone when the request ends.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Kernel } from 'fw'
import {
  filesUnder,
  MULTIPART,
  multipartBytes,
  PNG,
  RULES,
  uploadApp,
  type Part,
} from './upload-app.js'

const test = suite('uploads')

async function send(kernel: Kernel, url: string, parts: Part[]) {
  return kernel.inject({
    method: 'POST',
    url,
    headers: { 'content-type': MULTIPART, accept: 'application/json' },
    body: await multipartBytes(parts),
  })
}

test('reads plain fields and files, with each file typed by its content', async () => {
  const { kernel, tmp } = uploadApp()
  await kernel.boot()
  const res = await send(kernel, '/files', [
    { name: 'title', value: 'Desk' },
    { name: 'tag', value: 'a' },
    { name: 'tag', value: 'b' },
    { name: 'image', filename: 'desk.png', type: 'image/png', body: PNG },
    { name: 'notes', filename: 'notes.txt', type: 'text/plain', body: Buffer.from('hello') },
  ])
  assert.is(res.status, 200)
  assert.equal(res.json(), {
    fields: { title: 'Desk', tag: ['a', 'b'] },
    files: [
      { field: 'image', name: 'desk.png', size: PNG.length, type: 'image/png' },
      { field: 'notes', name: 'notes.txt', size: 5, type: null },
    ],
  })
  const received = res.events.filter((e) => e.type === 'upload.received')
  assert.equal(
    // Recorded as each file was whole: two small files may finish in either order.
    received.map((e) => [e.data.field, e.data.name, e.data.size, e.data.type]).sort(),
    [
      ['image', 'desk.png', PNG.length, 'image/png'],
      ['notes', 'notes.txt', 5, undefined],
    ],
  )
  assert.equal(filesUnder(tmp), [], 'the temporary files are gone once the request ended')
  await kernel.close()
})

test('moves a checked image into the uploads folder and answers where', async () => {
  const { kernel, dir, tmp } = uploadApp()
  await kernel.boot()
  const res = await send(kernel, '/image?to=products/7.png', [
    { name: 'image', filename: 'seven.png', type: 'image/png', body: PNG },
  ])
  assert.is(res.status, 200)
  const body = res.json() as { path: string; type: string }
  assert.is(body.path, join(dir, 'products', '7.png'))
  assert.is(body.type, 'image/png')
  assert.equal(readFileSync(body.path), PNG)
  assert.equal(filesUnder(tmp), [])
  await kernel.close()
})

test('a body that is not multipart answers 415', async () => {
  const { kernel } = uploadApp()
  await kernel.boot()
  const res = await kernel.inject({
    method: 'POST',
    url: '/files',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: '{}',
  })
  assert.is(res.status, 415)
  assert.is(res.json<{ error: string }>().error, 'unsupported_media_type')
  await kernel.close()
})

test('a broken multipart body answers 400 and leaves no file', async () => {
  const { kernel, tmp } = uploadApp()
  await kernel.boot()
  const whole = await multipartBytes([
    { name: 'f', filename: 'a.bin', body: Buffer.alloc(5000, 7) },
  ])
  const res = await kernel.inject({
    method: 'POST',
    url: '/files',
    headers: { 'content-type': MULTIPART, accept: 'application/json' },
    body: whole.subarray(0, 3000),
  })
  assert.is(res.status, 400)
  assert.is(res.json<{ error: string }>().error, 'malformed_body')
  const refused = res.events.find((e) => e.type === 'upload.refused')
  assert.is(refused?.type === 'upload.refused' && refused.data.code, 'FW_ERR_UPLOADS_MALFORMED')
  assert.equal(filesUnder(tmp), [])
  await kernel.close()
})

test('a multipart type without a boundary, or a body of garbage, answers 400', async () => {
  const { kernel, tmp } = uploadApp()
  await kernel.boot()
  for (const [type, body] of [
    ['multipart/form-data; charset=utf-8', 'x'],
    [MULTIPART, '\u0000\r\n--nope\r\n\r\n'.repeat(100)],
    [MULTIPART, ''],
  ]) {
    const res = await kernel.inject({
      method: 'POST',
      url: '/files',
      headers: { 'content-type': type!, accept: 'application/json' },
      body: body!,
    })
    assert.is(res.status, 400, `${type} ${JSON.stringify(body!.slice(0, 10))}`)
    assert.is(res.json<{ error: string }>().error, 'malformed_body')
  }
  assert.equal(filesUnder(tmp), [])
  await kernel.close()
})

test('a file input left empty is no file', async () => {
  const { kernel } = uploadApp()
  await kernel.boot()
  RULES.none = {}
  const res = await send(kernel, '/files', [{ name: 'image', filename: '', body: Buffer.alloc(0) }])
  assert.equal(res.json(), { fields: {}, files: [] })
  const missing = await send(kernel, '/image', [
    { name: 'image', filename: '', body: Buffer.alloc(0) },
  ])
  assert.is(missing.status, 422)
  assert.is(missing.json<{ field: string }>().field, 'image')
  assert.ok(existsSync(kernel.root))
  await kernel.close()
})

test.run()
