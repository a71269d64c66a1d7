// A bare fw app for `FW_APP=bench/lib/bare-app.mjs fw serve`: the kernel and `GET /_demo/ping`,
// no plugin, no database. bench/playground-start.ts starts it to show what `fw serve` costs before
// the playground adds its plugins and database. Plain JavaScript so that the compiled CLI loads it
// without registering tsx (a `.ts` app would make it do so); `fw` resolves to dist/ there and to
// the TypeScript sources under `-C fw-source`.
import { createKernel } from 'fw'

/** @type {import('fw').AppFactory} */
export default function createBareApp({ env = process.env } = {}) {
  const kernel = createKernel({
    root: '/nonexistent/fw-bench-bare',
    env,
    config: { app: { name: 'bare' }, development: env.NODE_ENV !== 'production' },
  })
  kernel.router.get('_demo/ping', () => ({ hello: 'world', n: 1 }))
  return kernel
}
