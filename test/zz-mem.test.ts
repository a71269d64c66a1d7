import createApp from '../playground/app.js'
import { createMemoryLogger } from 'fw/testing'
for (let i = 0; i < 5; i++) {
  const k = createApp({ env: { DATABASE_URL: 'pglite://memory', FW_APP_KEY: 'browser-test-application-key-0123456789' }, logger: createMemoryLogger() })
  await k.boot()
  await k.plugin('database').prepare()
  await k.inject('/products')
  await k.close()
  globalThis.gc?.()
  await new Promise((r) => setTimeout(r, 100))
  globalThis.gc?.()
  const m = process.memoryUsage()
  console.log(i, Math.round(m.rss / 1e6), 'MB rss', Math.round(m.heapUsed/1e6), 'heap', Math.round(m.external/1e6), 'ext', Math.round(m.arrayBuffers/1e6), 'ab')
}
