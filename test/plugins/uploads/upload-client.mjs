// A client in a process of its own, so the server's memory is measured alone: POSTs one generated
// file of argv[3] bytes to argv[2] as multipart/form-data and prints the JSON answer.
import { request } from 'node:http'
import { writeFilePart } from '../../../bench/lib/upload-body.mjs'
const [url, size] = [process.argv[2], Number(process.argv[3])]
const boundary = '----fw-client-boundary'
const req = request(url, {
  method: 'POST',
  headers: {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    accept: 'application/json',
  },
})
req.on('response', (res) => {
  let text = ''
  res.on('data', (c) => (text += c))
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, body: text })))
})
req.write(
  `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
)
writeFilePart(req, size, globalThis.Buffer.alloc(64 * 1024, 'fw-upload-'), boundary)
