/**
 * Every stable error code the kernel raises, with what it means. Codes are never reused; the list
 * is mirrored in docs/errors.md.
 */
export const ERROR_CODES = {
  FW_ERR_PLUGIN_INVALID: 'A plugin record is missing its name or setup.',
  FW_ERR_PLUGIN_DUPLICATE: 'Two plugins were registered under one name.',
  FW_ERR_PLUGIN_MISSING_DEPENDENCY: 'A plugin depends on a plugin that is not registered.',
  FW_ERR_PLUGIN_CYCLE: 'Plugins depend on each other in a cycle.',
  FW_ERR_PLUGIN_UNKNOWN: '`kernel.plugin(name)` asked for a plugin that is not registered.',
  FW_ERR_KERNEL_STATE: 'A kernel method was called in the wrong lifecycle state.',
  FW_ERR_MIDDLEWARE_UNKNOWN: 'A route or group names middleware that was never registered.',
  FW_ERR_MIDDLEWARE_NO_REPLY: 'A middleware returned something other than a reply.',
  FW_ERR_MIDDLEWARE_DUPLICATE: 'Two middleware were registered under one name.',
  FW_ERR_CONTROLLER_UNKNOWN: "A route's handler names a controller that was never registered.",
  FW_ERR_CONTROLLER_ACTION: "A route's handler names a method its controller does not have.",
  FW_ERR_BINDING_UNKNOWN: 'A route binds a parameter to a model no loader was registered for.',
  FW_ERR_CONFIG_INVALID: 'A configuration value has the wrong type or shape.',
  FW_ERR_CONFIG_ENV: 'An environment variable holds a value that cannot be used.',
  FW_ERR_VIEW_NO_ENGINE: 'A handler returned a view but no view engine is registered.',
  FW_ERR_HTTP_BODY_TOO_LARGE: 'The request body is larger than the configured limit.',
  FW_ERR_HTTP_BODY_MALFORMED: 'The request body could not be parsed as its content type says.',
  FW_ERR_HTTP_UNSUPPORTED_MEDIA: 'The request body has a content type the kernel does not parse.',
} as const

/** A stable error code (see {@link ERROR_CODES}); plugins may use their own `FW_ERR_<AREA>_<WHAT>`. */
export type ErrorCode = keyof typeof ERROR_CODES | `FW_ERR_${string}`

/**
 * A framework or configuration error: a bug or a setup mistake, not the caller's fault. Its message
 * says what happened and what to do. Outside development a client never sees it (500).
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
