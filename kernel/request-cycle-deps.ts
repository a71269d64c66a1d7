import type { BuiltinRouting } from './builtin-routing.js'
import type { CompiledRoutes } from './compiled-routes.js'
import type { RequestContext } from './context.js'
import { logRequestError, type ErrorReplyDeps } from './error-replies.js'
import type { KernelHooks } from './hooks.js'
import type { Kernel } from './kernel-type.js'
import {
  securityHeaders,
  type SecurityHeaders,
  type SecurityHeadersConfig,
} from './http/security-headers.js'
import type { MaintenanceProbe } from './maintenance.js'
import type { Reply } from './reply.js'
import type { Router } from './router/router.js'

// A kernel's request cycle as data: the parts the kernel hands over, made once. What a request
// does with them is kernel/request-cycle.ts.

/** What the request cycle is built from (the kernel hands over these parts, not itself). */
export interface RequestCycleDeps extends ErrorReplyDeps {
  readonly hooks: KernelHooks
  readonly router: Router
  /** The kernel's own `route` taps, callable directly while they are the only ones. */
  readonly routing: BuiltinRouting
  readonly routes: CompiledRoutes
  /** The maintenance probe; `now` is the request's start (a clock read saved). */
  readonly maintenance: MaintenanceProbe
  /** True when a plugin asked for the request scope (`kernel.useRequestScope()`). */
  scoped(): boolean
  /** The kernel each request's context (`ctx`, handed to handlers and taps) belongs to. */
  readonly kernel: Kernel
  /** `http.security_headers`: what every response (and every HTML page) carries. */
  readonly securityHeaders: SecurityHeadersConfig
}

/** A kernel's request cycle: its parts, and the headers every response carries. */
export interface RequestCycle {
  readonly deps: RequestCycleDeps
  /** The security headers, resolved once; the server adds them to what it writes itself too. */
  readonly securityHeaders: SecurityHeaders
  /** Told about each failing `annotate` tap (the hook runner calls it without `this`). */
  readonly annotateFailed: (tap: string, error: unknown, args: [Reply, RequestContext]) => void
  /** The cycle that answers this one's socket instead, once set (`fw dev`'s reloaded kernel). */
  successor: RequestCycle | undefined
}

export function createRequestCycle(deps: RequestCycleDeps): RequestCycle {
  return {
    deps,
    securityHeaders: securityHeaders(deps.securityHeaders),
    annotateFailed: (tap, error, [, ctx]) =>
      logRequestError(deps.logger(), ctx, `annotate tap '${tap}' failed`, { error }),
    successor: undefined,
  }
}
