// Type-level tests of createTestKernel's plugin entries: checked by `npm run typecheck`, never
// executed. Options that do not fit make the entry name the options type the plugin declares
// (`OptionsMustBe<…>`), where the compiler used to say `never`.
import { definePlugin } from 'fw'
import { createTestKernel, type CheckedEntry, type OptionsMustBe } from 'fw/testing'

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(_ok: T): void {}

interface PrefixOptions {
  prefix?: string
  paths?: string[]
}
const prefixed = definePlugin({
  name: 'prefixed',
  setup(_kernel, options: PrefixOptions = {}) {
    return options
  },
})
const required = definePlugin({
  name: 'required',
  setup(_kernel, options: { greeting: string }) {
    return options
  },
})

// Entries that fit compile, arrays given as literals included (the entry is inferred `const`).
createTestKernel({
  plugins: [
    [prefixed],
    [prefixed, {}],
    [prefixed, { prefix: 'a', paths: ['x'] }],
    [required, { greeting: 'hi' }],
  ],
})

// A value of the wrong type, an unknown key, missing required options: each fails to compile...
// @ts-expect-error: 'prefix' must be a string
createTestKernel({ plugins: [[prefixed, { prefix: 42 }]] })
// @ts-expect-error: 'prefx' is not an option
createTestKernel({ plugins: [[prefixed, { prefx: 'a' }]] })
// @ts-expect-error: 'greeting' must be a string
createTestKernel({ plugins: [[required, { greeting: 3 }]] })
// @ts-expect-error: the options are required
createTestKernel({ plugins: [[required]] })

// ...and the type it fails against names the options type expected, not `never`.
expectType<
  Equal<
    CheckedEntry<readonly [typeof prefixed, { readonly prefix: 42 }]>,
    readonly [typeof prefixed, OptionsMustBe<PrefixOptions | undefined>]
  >
>(true)
expectType<
  Equal<
    CheckedEntry<readonly [typeof required, { readonly greting: 'hi' }]>,
    readonly [typeof required, OptionsMustBe<{ greeting: string }>]
  >
>(true)
expectType<
  Equal<
    CheckedEntry<readonly [typeof required]>,
    readonly [typeof required & OptionsMustBe<{ greeting: string }>]
  >
>(true)
// An entry that fits is the plugin's entry.
expectType<
  Equal<
    CheckedEntry<readonly [typeof prefixed, { readonly paths: readonly ['x'] }]>,
    readonly [typeof prefixed, (PrefixOptions | undefined)?]
  >
>(true)
