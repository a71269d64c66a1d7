// The baseline server: bare polka answering GET /_demo/ping with the benchmark's JSON, on a free
// loopback port. Started by bench/http.ts as a child process.
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import polka from 'polka'
import { announce } from './server-ipc.js'

const app = polka()
app.get('/_demo/ping', (_req, res: ServerResponse) => {
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.end(JSON.stringify({ hello: 'world', n: 1 }))
})
app.listen(0, '127.0.0.1', () => {
  const server = app.server
  announce((server.address() as AddressInfo).port, () => server.close())
})
