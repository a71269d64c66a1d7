// Where an upload may go: the client's file name is reduced to a bare name whatever folders or
// `..` it carries, and `moveTo` refuses any path leading outside `uploads.dir` (`..`, an absolute
// path elsewhere, a symbolic link inside the folder that leads out) or onto an existing file.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kernel } from 'fw'
import { filesUnder, MULTIPART, multipartBytes, PNG, uploadApp } from './upload-app.js'

const test = suite('upload paths')

async function sendImage(kernel: Kernel, filename: string, to?: string) {
  const res = await kernel.inject({
    method: 'POST',
    url: to === undefined ? '/image' : `/image?to=${encodeURIComponent(to)}`,
    headers: { 'content-type': MULTIPART, accept: 'application/json' },
    body: await multipartBytes([{ name: 'image', filename, type: 'image/png', body: PNG }]),
  })
  return { status: res.status, body: res.json<Record<string, string>>() }
}

test("the client's file name never carries a folder", async () => {
  const { kernel, dir } = uploadApp()
  await kernel.boot()
  for (const [sent, kept] of [
    ['../../etc/passwd.png', 'passwd.png'],
    ['..\\..\\win.png', 'win.png'],
    ['/abs/x.png', 'x.png'],
    ['..', 'upload'],
  ] as const) {
    const res = await sendImage(kernel, sent)
    if (kept === 'upload') {
      assert.is(res.status, 422, 'a name reduced to nothing has no .png extension')
      continue
    }
    assert.is(res.status, 200, sent)
    assert.is(res.body.name, kept)
    assert.is(res.body.path, join(dir, kept))
  }
  await kernel.close()
})

test('moveTo refuses paths outside the uploads folder and onto an existing file', async () => {
  const { kernel, dir, tmp } = uploadApp()
  await kernel.boot()
  const outside = mkdtempSync(join(tmpdir(), 'fw-upload-outside-'))
  symlinkSync(outside, join(dir, 'leak'))
  for (const to of [
    '../escape.png',
    '/etc/escape.png',
    `${outside}/x.png`,
    'a/../../x.png',
    'leak/x.png',
    '.',
  ]) {
    const res = await sendImage(kernel, 'x.png', to)
    assert.is(res.status, 400, to)
    assert.is(res.body.error, 'invalid_upload_path', to)
  }
  assert.equal(filesUnder(outside), [])
  assert.is((await sendImage(kernel, 'x.png', 'inside/x.png')).status, 200)
  const again = await sendImage(kernel, 'x.png', 'inside/x.png')
  assert.is(again.status, 400, 'an existing file is not replaced')
  assert.ok(existsSync(join(dir, 'inside', 'x.png')))
  assert.equal(filesUnder(tmp), [])
  await kernel.close()
})

test.run()
