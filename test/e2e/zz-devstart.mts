import { createTempPackage, runInCopy } from './dev-process.js'
const APP = `import { createKernel } from 'fw'
import database from 'fw/plugins/database'
export default ({ env = process.env, root } = {}) => {
  const kernel = createKernel({ root, env, config: { database: { url: 'pglite://memory' } } })
  kernel.register(database, {})
  return kernel
}
`
const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
const running = await runInCopy(app, 'dev', { DATABASE_URL: undefined, NODE_OPTIONS: '--import /tmp/handles.mjs' })
const s = performance.now()
const code = await running.stop()
console.log(`stop ${Math.round(performance.now() - s)} ms, exit ${code}`, running.output())
app.remove()
