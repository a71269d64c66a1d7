// The fw server: the benchmark kernel (route, annotate tap reading the log; with
// FW_BENCH_MIDDLEWARE=1 three application middleware around the route) listening on a free
// loopback port. Started by bench/http.ts as a child process.
import { createBenchKernel } from './bench-kernel.js'
import { announce } from './server-ipc.js'

const kernel = createBenchKernel({ middleware: process.env.FW_BENCH_MIDDLEWARE === '1' })
const { port } = await kernel.listen(0, '127.0.0.1')
announce(port, () => void kernel.close(100))
