// Type-level tests: checked by `npm run typecheck` (tsc), never executed. Each `@ts-expect-error`
// fails the type-check if the line below it stops being an error.
import {
  createKernel,
  definePlugin,
  EventLog,
  type EventMap,
  type PluginApi,
  type PluginOptions,
} from 'fw'
import { createTestKernel } from 'fw/testing'

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(_ok: T): void {}

const greeter = definePlugin({
  name: 'greeter',
  setup(_kernel, options: { greeting: string; times?: number }) {
    return { greet: (who: string) => `${options.greeting} ${who}` }
  },
})

// Options and API are inferred from setup.
expectType<Equal<PluginOptions<typeof greeter>, { greeting: string; times?: number }>>(true)
expectType<Equal<PluginApi<typeof greeter>, { greet: (who: string) => string }>>(true)

const kernel = createKernel()
kernel.register(greeter, { greeting: 'hi' })
// @ts-expect-error: required options are required
kernel.register(greeter)
// @ts-expect-error: options are type-checked
kernel.register(greeter, { greeting: 42 })

// A plugin without options registers without them.
const bare = definePlugin({ name: 'bare', setup() {} })
kernel.register(bare)

// An async setup's API is unwrapped.
const _asyncApi = definePlugin({ name: 'async', setup: async () => ({ ready: true as const }) })
expectType<Equal<PluginApi<typeof _asyncApi>, { ready: true }>>(true)

// kernel.plugin() is typed through PluginApis declaration merging.
declare module 'fw' {
  interface PluginApis {
    greeter: PluginApi<typeof greeter>
  }
  interface EventMap {
    'cache.missed': { key: string }
  }
}
const _api = kernel.plugin('greeter')
expectType<Equal<typeof _api, { greet: (who: string) => string }>>(true)

// Events are constrained to EventMap: a merged event records, a typo does not compile.
kernel.router.get('x', (ctx) => {
  ctx.log.record('cache.missed', { key: 'k' })
  // @ts-expect-error: unknown event type
  ctx.log.record('cache.mised', { key: 'k' })
  // @ts-expect-error: wrong data for a known event
  ctx.log.record('cache.missed', { id: 1 })
  return {}
})
expectType<Equal<EventMap['cache.missed'], { key: string }>>(true)

// Phase names are declared (kernel's own, or a plugin's by merging on PhaseNames): a typo fails.
const log = new EventLog()
void log.phase('routing', () => 1)
// @ts-expect-error: 'routnig' is no declared phase
void log.phase('routnig', () => 1)
// @ts-expect-error: the kernel knows no feature's phase ('checkout' is declared by no plugin)
kernel.recordBootPhase('checkout', 1)

// createTestKernel checks each plugin's options as kernel.register does.
createTestKernel({ plugins: [[greeter, { greeting: 'hi', times: 2 }], [bare]] })
// @ts-expect-error: options are type-checked per plugin
createTestKernel({ plugins: [[greeter, { greeting: 42 }]] })
// @ts-expect-error: required options are required
createTestKernel({ plugins: [[greeter]] })
