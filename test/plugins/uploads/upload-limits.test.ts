// Each limit of the uploads plugin, crossed by one byte (or one part) and met exactly: the refusal
// names the field, over a real socket reading stops there and the connection closes after the
// answer, and no temporary file is left; a file whose content is not what its name claims is
// refused (422).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import {
  filesUnder,
  generated,
  multipart,
  multipartLength,
  PNG,
  post,
  RULES,
  uploadApp,
  type Part,
} from './upload-app.js'

const test = suite('upload limits')

let kernel: Kernel
let tmp: string
let url: string

test.before(async () => {
  ;({ kernel, tmp } = uploadApp())
  await kernel.boot()
  url = (await kernel.listen(0, '127.0.0.1')).url
  RULES.small = {
    maxFileSize: 1000,
    maxTotalSize: 4000,
    maxFiles: 2,
    maxFields: 2,
    maxFieldSize: 10,
  }
})
test.after(() => kernel.close())

const file = (name: string, size: number): Part => ({
  name,
  filename: `${name}.bin`,
  body: Buffer.alloc(size, 3),
})

async function sendSmall(parts: Part[], chunked = false) {
  return post(`${url}/files?rules=small`, multipart(parts), {
    length: chunked ? undefined : await multipartLength(parts),
  })
}

test('a file of exactly the limit is taken; one byte more is refused with 413 naming it', async () => {
  assert.is((await sendSmall([file('a', 1000)])).status, 200)
  const res = await sendSmall([file('a', 10), file('big', 1001)], true)
  assert.is(res.status, 413)
  assert.is(res.body.field, 'big')
  assert.is(res.body.error, 'payload_too_large')
  assert.equal(filesUnder(tmp), [])
})

test('a body of exactly the total is taken; one byte more is refused, by length or as it streams', async () => {
  const fits: Part[] = [file('a', 900), file('b', 900)]
  const overhead = (await multipartLength(fits)) - 1800
  const exact: Part[] = [file('a', 1000), file('b', 4000 - overhead - 1000)]
  assert.is(await multipartLength(exact), 4000)
  RULES.total = { maxTotalSize: 4000, maxFileSize: 4000 }
  const taken = await post(`${url}/files?rules=total`, multipart(exact), { length: 4000 })
  assert.is(taken.status, 200)
  const over: Part[] = [file('a', 1000), file('b', 4000 - overhead - 999)]
  const byLength = await post(`${url}/files?rules=total`, multipart(over), { length: 4001 })
  assert.is(byLength.status, 413)
  const streamed = await post(`${url}/files?rules=total`, multipart(over))
  assert.is(streamed.status, 413)
  assert.is(streamed.body.field, 'b', 'the part being read when the total passed')
  assert.equal(filesUnder(tmp), [])
})

test('one file too many, one field too many and one byte too long a field are refused by name', async () => {
  const files = await sendSmall([file('a', 1), file('b', 1), file('c', 1)])
  assert.is(files.status, 413)
  assert.is(files.body.field, 'c')
  const fields = await sendSmall([
    { name: 'x', value: '1' },
    { name: 'y', value: '2' },
    { name: 'z', value: '3' },
  ])
  assert.is(fields.status, 413)
  assert.is(fields.body.field, 'z')
  assert.is((await sendSmall([{ name: 'x', value: '0123456789' }])).status, 200)
  const long = await sendSmall([{ name: 'x', value: '0123456789!' }])
  assert.is(long.status, 413)
  assert.is(long.body.field, 'x')
  assert.equal(filesUnder(tmp), [])
})

test('a file whose content is not an image is refused whatever its name and declared type say', async () => {
  const lying: Part = {
    name: 'image',
    filename: 'photo.png',
    type: 'image/png',
    body: Buffer.from('<?php system($_GET["c"]); ?>'.padEnd(5000, ' ')),
  }
  const res = await post(`${url}/image`, multipart([lying]))
  assert.is(res.status, 422)
  assert.is(res.body.field, 'image')
  assert.is(res.body.error, 'invalid_upload')
  const named: Part = { name: 'image', filename: 'shell.php', type: 'image/png', body: PNG }
  const byName = await post(`${url}/image`, multipart([named]))
  assert.is(byName.status, 422)
  assert.match(String(byName.body.message), '.php')
  const elsewhere: Part = { name: 'avatar', filename: 'a.png', type: 'image/png', body: PNG }
  const wrongField = await post(`${url}/image`, multipart([elsewhere]))
  assert.is(wrongField.status, 422)
  assert.is(wrongField.body.field, 'avatar')
  assert.equal(filesUnder(tmp), [])
})

test('a body read already by ctx.body() answers 400 rather than waiting for bytes', async () => {
  const parts: Part[] = [file('a', 10)]
  const res = await post(`${url}/read-twice`, multipart(parts), {
    length: await multipartLength(parts),
  })
  assert.is(res.status, 400)
  assert.is(res.body.error, 'malformed_body')
})

test('a large refused file is not read to its end', async () => {
  let sent = 0
  const body = generated(50 * 1024 * 1024)
  const counted: Part = {
    name: 'big',
    filename: 'big.bin',
    body: async function* () {
      for await (const c of body()) {
        sent += c.length
        yield c
      }
    },
  }
  const res = await post(`${url}/files?rules=small`, multipart([counted]))
  assert.is(res.status, 413)
  assert.is(res.body.field, 'big')
  // The rest of the body is not read to keep the connection: it closes after the answer.
  assert.is(res.headers.connection, 'close')
  assert.ok(sent < 20 * 1024 * 1024, `sent ${sent} bytes of 50 MiB before the answer`)
})

test.run()
