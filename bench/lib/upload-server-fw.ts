// fw receiving one file per POST /upload: the uploads plugin streams it to a temporary file (its
// type read from the first bytes, as every upload's is), removed when the request ends. Started
// by bench/uploads.ts as a child process.
import { createKernel, json } from 'fw'
import uploads, { file } from 'fw/plugins/uploads'
import { announce } from './server-ipc.js'
import { readRss } from './upload-rss.js'

const GiB = 1024 ** 3
const kernel = createKernel({
  config: {
    app: { name: 'bench-uploads' },
    uploads: { max_file_size: 2 * GiB, max_total_size: 2 * GiB },
  },
  env: { NODE_ENV: 'production' },
})
kernel.register(uploads)
kernel.router.post('upload', async (ctx) => {
  const received = await file(ctx, 'file')
  return json({ size: received.size })
})
kernel.router.get('rss', () => json(readRss()))
await kernel.boot()
const { port } = await kernel.listen(0, '127.0.0.1')
announce(port, () => void kernel.close())
