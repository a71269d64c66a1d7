// A route whose schema declares a file: the OpenAPI document shows its body as
// `multipart/form-data` with the file as `format: binary`, the typed client written from that
// document sends a `File` as a form, and the parts are checked against the schema (422).
import SwaggerParser from '@apidevtools/swagger-parser'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import openapi, { renderClient } from 'fw/plugins/openapi'
import uploads from 'fw/plugins/uploads'
import { setImage } from './fixture/controllers/product-image.js'
import { PNG } from './upload-app.js'

const test = suite('upload openapi')

const BODY = {
  type: 'object',
  required: ['image', 'caption'],
  properties: {
    image: { type: 'string', format: 'binary' },
    caption: { type: 'string', maxLength: 20 },
    position: { type: 'integer', minimum: 0 },
  },
} as const

let kernel: Kernel
let url: string

test.before(async () => {
  kernel = createTestKernel({
    root: fileURLToPath(new URL('fixture', import.meta.url)),
    config: { uploads: { dir: mkdtempSync(join(tmpdir(), 'fw-upload-dir-')) } },
    plugins: [
      [uploads, undefined],
      [openapi, { generateOnStart: false }],
    ],
  })
  kernel.router.post('api/products/{id}/image', setImage).schema({ body: BODY })
  await kernel.boot()
  url = (await kernel.listen(0, '127.0.0.1')).url
})
test.after(() => kernel.close())

test('the document shows the body as multipart/form-data with the file as binary', async () => {
  const doc = await kernel.plugin('openapi').document()
  const op = doc.paths['/api/products/{id}/image']!.post!
  const body = op.requestBody as { content: Record<string, { schema: unknown }> }
  assert.equal(Object.keys(body.content), ['multipart/form-data'])
  assert.equal(body.content['multipart/form-data']!.schema, BODY)
  assert.ok(op.responses['413'], 'a limit crossed is documented')
  assert.ok(op.responses['422'])
  // A valid OpenAPI 3.0 document, multipart body included.
  await SwaggerParser.validate(structuredClone(doc) as never)
})

test('the typed client sends a File as a form, and its declaration takes a Blob', async () => {
  const doc = await kernel.plugin('openapi').document()
  const { js, dts } = renderClient(doc)
  assert.match(dts, 'image: Blob')
  const module = join(mkdtempSync(join(tmpdir(), 'fw-upload-client-')), 'api-client.mjs')
  writeFileSync(module, js)
  type Call = (args: unknown) => Promise<Record<string, unknown>>
  const client = (await import(pathToFileURL(module).href)) as Record<string, Call> & {
    configure(o: object): void
  }
  client.configure({ baseUrl: url })
  const call = Object.entries(client).find(([name]) => /image/i.test(name))![1] as Call
  const answer = await call({
    id: 7,
    body: {
      image: new File([PNG], 'desk.png', { type: 'image/png' }),
      caption: 'A desk',
      position: 2,
    },
  })
  assert.equal(answer, {
    id: '7',
    name: 'desk.png',
    size: PNG.length,
    fields: { caption: 'A desk', position: '2' },
  })
  const refused = await call({
    id: 7,
    body: { image: new File([PNG], 'x.png'), caption: 'x'.repeat(21) },
  }).then(
    () => undefined,
    (error: { status: number; body: { errors: Record<string, string[]> } }) => error,
  )
  assert.is(refused?.status, 422)
  assert.equal(Object.keys(refused!.body.errors), ['caption'])
})

test('a form without the required file is refused with the field named', async () => {
  const form = new FormData()
  form.append('caption', 'A desk')
  const res = await fetch(`${url}/api/products/7/image`, {
    method: 'POST',
    body: form,
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 422)
  const body = (await res.json()) as { errors: Record<string, string[]> }
  assert.equal(body.errors, { image: ['The image field is required.'] })
})

test.run()
