// Type-level tests of what a plugin declares: the plugins it uses and the config keys it owns.
// Checked by `npm run typecheck` (tsc), never executed. Each `@ts-expect-error` fails the
// type-check if the line below it stops being an error.
import { createKernel, defineConfig, definePlugin } from 'fw'

declare module 'fw' {
  interface FwConfig {
    typed_slice: { size: number; label: string | undefined }
  }
}

// A typical setup: the health and database plugins' types are imported, so their names are known.
definePlugin({ name: 'uses-health', dependsOn: ['health'], setup() {} })
definePlugin({ name: 'maybe-health', optionalDependsOn: ['health', 'database'], setup() {} })
// @ts-expect-error: a misspelt dependency fails to compile
definePlugin({ name: 'typo', dependsOn: ['helth'], setup() {} })
// @ts-expect-error: a misspelt optional dependency too
definePlugin({ name: 'typo', optionalDependsOn: ['databse'], setup() {} })

const kernel = createKernel()
kernel.plugin('health').checks()
// @ts-expect-error: kernel.plugin() takes a declared name
kernel.plugin('helth')
// @ts-expect-error: kernel.hasPlugin() too
kernel.hasPlugin('helth')

// A config slice: defaults typed by the FwConfig declaration, rules by dotted path.
definePlugin({
  name: 'typed-slice',
  config: {
    defaults: { typed_slice: { size: 1, label: undefined } },
    schema: { 'typed_slice.size': 'integer', 'typed_slice.label': 'string?' },
    env: { 'typed_slice.size': 'TYPED_SLICE_SIZE' },
  },
  setup(k) {
    const size: number = k.config.typed_slice.size
    return size
  },
})
definePlugin({
  name: 'typed-slice',
  config: {
    // @ts-expect-error: a default of the wrong type
    defaults: { typed_slice: { size: 'big', label: undefined } },
    schema: { 'typed_slice.size': 'integer', 'typed_slice.label': 'string?' },
  },
  setup() {},
})
definePlugin({
  name: 'typed-slice',
  config: {
    defaults: { typed_slice: { size: 1, label: undefined } },
    // @ts-expect-error: a rule for a path FwConfig does not have
    schema: { 'typed_slice.sise': 'integer' },
  },
  setup() {},
})
definePlugin({
  name: 'typed-slice',
  config: {
    defaults: { typed_slice: { size: 1, label: undefined } },
    // @ts-expect-error: an unknown rule
    schema: { 'typed_slice.size': 'number' },
  },
  setup() {},
})
// @ts-expect-error: an app's config is checked against the slices' types
defineConfig({ typed_slice: { size: '3' } })
defineConfig({ typed_slice: { size: 3 }, database: { url: 'pglite://memory' } })
