import { json, type Reply, type RequestContext } from 'fw'

/** The `error` codes of the API middleware: key, token and session failures, and `minUsertype`. */
export type ApiErrorCode =
  | 'APIKeyMissing'
  | 'APIKeyInvalid'
  | 'InvalidAccessToken'
  | 'Unauthenticated'
  | 'InsufficientUsertype'

/**
 * The API error envelope, `{status, statusmessage, message, error}` (+ `data`): README.md
 * "Failures".
 */
export interface ApiErrorEnvelope {
  status: number
  statusmessage: string
  message: string
  error: ApiErrorCode
  /** Why a token was refused; only in development. */
  data?: Record<string, unknown>
}

const FAILURES: Record<ApiErrorCode, { status: number; statusmessage: string; message: string }> = {
  APIKeyMissing: { status: 403, statusmessage: 'Forbidden', message: 'An API key is required.' },
  APIKeyInvalid: {
    status: 401,
    statusmessage: 'Authentication failure',
    message: 'The API key is not valid.',
  },
  InvalidAccessToken: {
    status: 403,
    statusmessage: 'Forbidden',
    message: 'The access token is not valid.',
  },
  Unauthenticated: {
    status: 401,
    statusmessage: 'Unauthenticated',
    message: 'Authentication required.',
  },
  InsufficientUsertype: {
    status: 403,
    statusmessage: 'Forbidden',
    message: 'Your account may not do this.',
  },
}

/** The envelope of one failure, with `data` when given (the caller decides: development only). */
export function apiError(error: ApiErrorCode, data?: Record<string, unknown>): Reply {
  const f = FAILURES[error]
  const body: ApiErrorEnvelope = {
    status: f.status,
    statusmessage: f.statusmessage,
    message: f.message,
    error,
  }
  if (data !== undefined) body.data = data
  return json(body, f.status)
}

/**
 * The `data` of a refused token, `{credential, reason}`, in development only (README.md
 * "Failures"); production answers the bare envelope. Guarded by test/plugins/api/api-key.test.ts
 * and unified.test.ts ("no `data` key outside development").
 */
export function refusalData(
  ctx: RequestContext,
  refused: { credential: string; reason: string } | undefined,
): Record<string, unknown> | undefined {
  if (!ctx.kernel.isDevelopment()) return undefined
  return { credential: refused?.credential ?? 'accessToken', reason: refused?.reason ?? 'unknown' }
}
