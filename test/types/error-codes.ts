// Type-level tests of the error registries: a closed ErrorCode union and typed message arguments.
// Checked by `npm run typecheck` (tsc), never executed. Each `@ts-expect-error` fails the type-check if the line below it stops being an error.
import { defineErrors, FwError, HttpError, type CodesOf, type ErrorCode } from 'fw'
import { databaseErrors } from 'fw/plugins/database'

const greeterErrors = defineErrors(
  { owner: 'greeter-types', title: 'greeter (type tests)' },
  {
    FW_ERR_GREETER_TYPES_NO_NAME: {
      when: 'The greeting has an empty name.',
      fix: 'Pass a non-empty name.',
      message: ({ option }: { option: string }) => `Option '${option}' must not be empty.`,
    },
    FW_ERR_GREETER_TYPES_FIXED: { when: 'Always.', fix: 'None.', message: 'Fixed text.' },
  },
)
declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof greeterErrors> {}
}

// Registered codes, the kernel's and the plugins', are ErrorCodes; anything else is not.
const kernelCode: ErrorCode = 'FW_ERR_PLUGIN_CYCLE'
const pluginCode: ErrorCode = 'FW_ERR_DATABASE_URL'
const ownCode: ErrorCode = 'FW_ERR_GREETER_TYPES_NO_NAME'
// @ts-expect-error: an unregistered code is not an ErrorCode (the union is closed)
const madeUp: ErrorCode = 'FW_ERR_MADE_UP'
// @ts-expect-error: nor may an FwError carry one
new FwError('FW_ERR_MADE_UP', 'message')
// @ts-expect-error: nor an HttpError
new HttpError(400, 'bad', { code: 'FW_ERR_MADE_UP' })

// A message's argument is typed by its definition; a fixed message takes none.
greeterErrors.error('FW_ERR_GREETER_TYPES_NO_NAME', { option: 'greeting' })
greeterErrors.error('FW_ERR_GREETER_TYPES_FIXED')
greeterErrors.error('FW_ERR_GREETER_TYPES_FIXED', { cause: new Error('why') })
databaseErrors.httpError('FW_ERR_DATABASE_UNAVAILABLE', { headers: { 'retry-after': '5' } })
// @ts-expect-error: the argument is required
greeterErrors.error('FW_ERR_GREETER_TYPES_NO_NAME')
// @ts-expect-error: and has its declared shape
greeterErrors.error('FW_ERR_GREETER_TYPES_NO_NAME', { name: 'greeting' })
// @ts-expect-error: a registry builds only its own codes
greeterErrors.error('FW_ERR_DATABASE_URL', { url: 'x' })

export { kernelCode, pluginCode, ownCode, madeUp }
