/**
 * One error code: when it is raised, what to do about it, and the message an error with it
 * carries. Documentation and code read the same record: `docs/errors.md` is generated from the
 * registries.
 */
export interface ErrorDefinition {
  /** When it is raised: a sentence or two, as docs/errors.md shows it. */
  readonly when: string
  /** What to do about it. */
  readonly fix: string
  /**
   * The error's message: fixed text, or a function of one typed argument (the registry's
   * `error()` then requires that argument). Says what happened and what to do.
   */
  readonly message: string | ((args: never) => string)
  /**
   * The status the client gets: default 500. An `FwError` with a status of 500 or more answers
   * with it; a code answered as an `HttpError` (see `error`) uses it as the reply's status.
   */
  readonly status?: number
  /**
   * Set for the caller's fault: the code is raised as an `HttpError` (`registry.httpError()`)
   * whose JSON body is `{ error, message }`.
   */
  readonly error?: string
}

/** The codes of one package, each `FW_ERR_<AREA>_<WHAT>`. */
export type ErrorDefinitions = { readonly [code: `FW_ERR_${string}`]: ErrorDefinition }

/** Who defines a registry, as docs/errors.md lists it. */
export interface ErrorRegistryInfo<Owner extends string = string> {
  /** The package or plugin that raises these codes (`'kernel'`, `'database'`, `'my-plugin'`). */
  readonly owner: Owner
  /** The section title in docs/errors.md. */
  readonly title: string
  /** An optional paragraph under the title: when these are raised, what they share. */
  readonly intro?: string
}

/** What `error()` and `httpError()` accept besides the message argument. */
export interface ErrorOptions {
  /** The error that caused this one. */
  readonly cause?: unknown
  /** Headers of an `HttpError`'s reply (`retry-after`, …). */
  readonly headers?: Record<string, string>
  /** More fields of an `HttpError`'s JSON body, after `error` and `message`. */
  readonly body?: Record<string, unknown>
}

/** The arguments after the code: the message's argument when it takes one, then options. */
export type ErrorArgs<D> = D extends { readonly message: (args: infer A) => string }
  ? [args: A, options?: ErrorOptions]
  : [options?: ErrorOptions]

/** A package's error codes, and the errors built from them with their registered messages. */
export interface ErrorRegistry<
  Owner extends string = string,
  Defs extends ErrorDefinitions = ErrorDefinitions,
  E extends Error = FwError,
> extends ErrorRegistryInfo<Owner> {
  readonly definitions: Defs
  /** An `FwError` (or the registry's subclass) with this code, its message and status. */
  error<C extends keyof Defs & string>(code: C, ...args: ErrorArgs<Defs[C]>): E
  /** An `HttpError` with this code: the definition's status, body `{ error, message }`. */
  httpError<C extends keyof Defs & string>(code: C, ...args: ErrorArgs<Defs[C]>): HttpError
  /** The message alone. */
  message<C extends keyof Defs & string>(code: C, ...args: ErrorArgs<Defs[C]>): string
}

/**
 * The codes of a registry as an object type, to add them to {@link ErrorCodes} by declaration
 * merging: `declare module 'fw' { interface ErrorCodes extends CodesOf<typeof myErrors> {} }`.
 * Each code maps to its owner, so two packages defining one code fail to compile ("cannot
 * simultaneously extend").
 */
export type CodesOf<R extends { readonly owner: string; readonly definitions: object }> = {
  readonly [C in keyof R['definitions']]: R['owner']
}

/**
 * Every error code fw and its plugins raise, each mapped to the package that owns it. Each
 * registry adds its codes by declaration merging where it is defined, the kernel's own too
 * (kernel/error-codes.ts, kernel/router/router-error.ts; see {@link defineErrors}).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface ErrorCodes {}

/** A registered error code: the closed union of every registry's codes ({@link ErrorCodes}). */
export type ErrorCode = keyof ErrorCodes & string

/** The kernel registry's entry for a code defined twice; here, since defineErrors raises it. */
export const duplicateCode = {
  when: '`defineErrors()` got a code another package already defined.',
  fix: "Rename your code: a code has one meaning and one owner. Use your plugin's area (`FW_ERR_<AREA>_<WHAT>`).",
  message: ({ code, first, second }: { code: string; first: string; second: string }) =>
    `Error code ${code} is defined by '${first}' and by '${second}'. A code has one meaning and one owner: rename one of them.`,
} as const satisfies ErrorDefinition

const registries: ErrorRegistry[] = []
const ownerOf = new Map<string, string>()

type ErrorClass<E extends Error> = new (
  code: never,
  message: string,
  options?: { status?: number; cause?: unknown },
) => E

/**
 * Declares a package's error codes in one place: when each is raised, what to do, its message
 * (fixed, or built from a typed argument) and its status. Returns the registry that builds the
 * errors; add its codes to the closed {@link ErrorCode} union by declaration merging.
 *
 * A code defined by two owners fails at once (`FW_ERR_ERRORS_DUPLICATE`); the same owner defining
 * it again (its module loaded twice) replaces the first.
 *
 * @example
 * export const greeterErrors = defineErrors(
 *   { owner: 'greeter', title: 'greeter plugin' },
 *   {
 *     FW_ERR_GREETER_NO_NAME: {
 *       when: 'The greeting has an empty name.',
 *       fix: 'Pass a non-empty `greeting` option.',
 *       message: ({ option }: { option: string }) => `Option '${option}' must not be empty.`,
 *     },
 *   },
 * )
 * declare module 'fw' {
 *   interface ErrorCodes extends CodesOf<typeof greeterErrors> {}
 * }
 * throw greeterErrors.error('FW_ERR_GREETER_NO_NAME', { option: 'greeting' })
 */
export function defineErrors<
  const Owner extends string,
  const Defs extends ErrorDefinitions,
  E extends Error = FwError,
>(
  info: ErrorRegistryInfo<Owner>,
  definitions: Defs,
  ErrorType?: ErrorClass<E>,
): ErrorRegistry<Owner, Defs, E> {
  for (const code of Object.keys(definitions)) {
    const owner = ownerOf.get(code)
    if (owner !== undefined && owner !== info.owner) {
      throw new FwError(
        'FW_ERR_ERRORS_DUPLICATE',
        duplicateCode.message({ code, first: owner, second: info.owner }),
      )
    }
  }
  const build = (code: string, args: unknown[]): [ErrorDefinition, string, ErrorOptions] => {
    const def = (definitions as ErrorDefinitions)[code as `FW_ERR_${string}`]!
    const text =
      typeof def.message === 'string'
        ? def.message
        : (def.message as (a: unknown) => string)(args[0])
    const options = (typeof def.message === 'string' ? args[0] : args[1]) as
      ErrorOptions | undefined
    return [def, text, options ?? {}]
  }
  const registry: ErrorRegistry<Owner, Defs, E> = {
    ...info,
    definitions,
    error(code, ...args) {
      const [def, text, options] = build(code, args)
      const Type = (ErrorType ?? FwError) as ErrorClass<E>
      return new Type(code as never, text, { status: def.status, cause: options.cause })
    },
    httpError(code, ...args) {
      const [def, text, options] = build(code, args)
      return new HttpError(
        def.status ?? 500,
        { error: def.error ?? 'unavailable', message: text, ...options.body },
        { code: code as ErrorCode, headers: options.headers, cause: options.cause },
      )
    },
    message(code, ...args) {
      return build(code, args)[1]
    },
  }
  const index = registries.findIndex((r) => r.owner === info.owner && r.title === info.title)
  if (index === -1) registries.push(registry as unknown as ErrorRegistry)
  else registries[index] = registry as unknown as ErrorRegistry
  for (const code of Object.keys(definitions)) ownerOf.set(code, info.owner)
  return registry
}

/**
 * A plugin's error codes: {@link defineErrors} with the plugin's name as the owner and
 * `<name> plugin` as the title of its section in docs/errors.md (`intro`, if given, under it).
 *
 * @example
 * export const greeterErrors = definePluginErrors('greeter', {
 *   FW_ERR_GREETER_NO_NAME: {
 *     when: 'The greeting has an empty name.',
 *     fix: 'Pass a non-empty `greeting` option.',
 *     message: 'The greeting needs a name.',
 *   },
 * })
 */
export function definePluginErrors<const Owner extends string, const Defs extends ErrorDefinitions>(
  plugin: Owner,
  definitions: Defs,
  intro?: string,
): ErrorRegistry<Owner, Defs, FwError> {
  const info = { owner: plugin, title: `${plugin} plugin` }
  return defineErrors(intro === undefined ? info : { ...info, intro }, definitions)
}

/** Every registry defined so far in this process, in definition order (docs/errors.md's order). */
export function errorRegistries(): readonly ErrorRegistry[] {
  return registries
}

/**
 * A framework or configuration error: a bug or a setup mistake, not the caller's fault. Its message
 * says what happened and what to do. Outside development a client never sees it (500). Build one
 * with a registry's `error()`, which takes the registered message.
 */
export class FwError extends Error {
  readonly code: ErrorCode
  /** An HTTP status to answer with when this reaches the client (default 500). */
  readonly status: number

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'FwError'
    this.code = code
    this.status = options.status ?? 500
  }
}

/**
 * The caller's fault (4xx) or a deliberate answer (503…): rendered without a stack, its `body` sent
 * as JSON to clients that ask for JSON and as a short HTML page otherwise.
 *
 * @example
 * throw new HttpError(404, { error: 'not_found' })
 */
export class HttpError extends Error {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>
  readonly code: ErrorCode | undefined

  constructor(
    status: number,
    body: Record<string, unknown> | string = {},
    options: { headers?: Record<string, string>; code?: ErrorCode; cause?: unknown } = {},
  ) {
    const payload = typeof body === 'string' ? { error: body } : body
    const message = typeof payload.error === 'string' ? payload.error : `HTTP ${status}`
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'HttpError'
    this.status = status
    this.body = payload
    this.headers = options.headers ?? {}
    this.code = options.code
  }
}

/** True for an {@link HttpError}. */
export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError
}
