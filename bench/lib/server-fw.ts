// The fw server: the benchmark kernel (route, middleware group, annotate tap reading the log)
// listening on a free loopback port. Started by bench/http.ts as a child process.
import { createBenchKernel } from './bench-kernel.js'
import { announce } from './server-ipc.js'

const kernel = createBenchKernel()
const { port } = await kernel.listen(0, '127.0.0.1')
announce(port, () => void kernel.close(100))
