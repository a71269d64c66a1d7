// Shared by the health suites: a kernel with the health plugin and only the checks a test names,
// and a fake sign-in (`x-test-user: <id>:<usertype>`) through an authenticate tap.
import type { AnyPlugin, Identity, Kernel } from 'fw'
import auth from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import health, { type HealthCheck, type HealthOptions, type HealthStatus } from 'fw/plugins/health'
import { createTestKernel } from 'fw/testing'

/** Health with no built-in check but those asked for. */
export const NO_BUILTINS: HealthOptions = {
  diskSpace: false,
  memoryLimit: false,
  cache: false,
  database: false,
}

const withDatabase: Kernel[] = []

/** Closes the kernels {@link healthKernel} gave a database (an open PGlite keeps the process up). */
export async function closeHealthKernels(): Promise<void> {
  await Promise.all(withDatabase.splice(0).map((k) => k.close()))
}

export function healthKernel(
  options: HealthOptions = {},
  extra: {
    features?: string[]
    config?: Record<string, unknown>
    /** The auth plugin (on an in-memory database, web sign-in on): sign-in URL, `signing_keys`. */
    auth?: boolean
    /** The database plugin alone (its config keys), never opened unless a test asks. */
    database?: boolean
  } = {},
): Kernel {
  const kernel = createTestKernel({
    plugins: [[health, { ...NO_BUILTINS, ...options }]],
    config: { app: { name: 'svc' }, features: extra.features ?? [], ...extra.config },
  })
  if (extra.auth || extra.database) {
    kernel.register(database as AnyPlugin, { url: 'pglite://memory', entities: [] })
    withDatabase.push(kernel)
  }
  if (extra.auth) kernel.register(auth, { webLogin: true })
  kernel.hooks.authenticate.tapPromise('test-user', async (ctx): Promise<Identity | undefined> => {
    const raw = ctx.header('x-test-user')
    if (!raw) return undefined
    const [id, usertype] = raw.split(':')
    return { id: id!, username: `user${id}`, usertype: Number(usertype ?? 0), via: 'test' }
  })
  return kernel
}

/** A {@link healthKernel} without options, booted, with `checks` registered in order. */
export async function bootedHealthKernel(...checks: HealthCheck[]): Promise<Kernel> {
  const kernel = healthKernel()
  await kernel.boot()
  for (const check of checks) kernel.plugin('health').register(check)
  return kernel
}

/** A check answering `status`, counting its runs. */
export function fixed(
  name: string,
  status: HealthStatus,
  details?: Record<string, unknown>,
): HealthCheck & { calls: number } {
  const check = {
    name,
    calls: 0,
    async run() {
      check.calls++
      return { status, name, message: `${name} is ${status}`, ...(details ? { details } : {}) }
    },
  }
  return check
}
