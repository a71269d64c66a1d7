// The public API of fw. Everything a plugin or an application imports comes from here (or from
// `fw/testing`); internal modules import each other by path.
export { createKernel } from './create-kernel.js'
export { Readiness } from './readiness.js'
export type { ReadinessCheck, ReadinessReport } from './readiness.js'
export { ServeOptions } from './serve-options.js'
export type { StartRequirement } from './serve-options.js'
export { Kernel } from './kernel.js'
export { carryOver, startCarryOver } from './carry-over.js'
export type { CarryOver } from './carry-over.js'
export type { KernelOptions, KernelState, BootTiming } from './types.js'
export type { ListeningAddress } from './http/serving.js'
export { definePlugin } from './plugin.js'
export type {
  Plugin,
  AnyPlugin,
  PluginOptions,
  PluginApi,
  PluginApis,
  PluginName,
} from './plugin.js'
export type { KernelHooks } from './hooks.js'
export { RequestContext } from './context.js'
export { currentContext, runInContext } from './scope.js'
export type { ContextState, RequestInit } from './context.js'
export type { BodySource } from './http/body.js'
export { checkMultipartBody, isMultipartSchema } from './validation.js'
export { EventLog } from './events.js'
export type { EventMap, EventType, FwEvent, AnyEvent, PhaseName, PhaseNames } from './events.js'
export { Reply, json, html, text, empty, redirect, send, view, toReply } from './reply.js'
export type { ReplyBody, HeaderValue } from './reply.js'
export {
  FwError,
  HttpError,
  isHttpError,
  defineErrors,
  definePluginErrors,
  errorRegistries,
} from './errors.js'
export { messageOf } from './message-of.js'
export { importOptional, requireOptional } from './optional-package.js'
export { hasRParam } from './builtin-routing.js'
export type {
  CodesOf,
  ErrorArgs,
  ErrorCode,
  ErrorCodes,
  ErrorDefinition,
  ErrorDefinitions,
  ErrorOptions,
  ErrorRegistry,
  ErrorRegistryInfo,
} from './errors.js'
export { defineConfig, resolveConfig, hasFeature, isDevelopment } from './config.js'
export { deepMerge } from './config-sources.js'
export type {
  FwConfig,
  UserConfig,
  DeepPartial,
  ConfigSlice,
  ConfigRule,
  ConfigRuleObject,
  ConfigKindValues,
  ConfigKind,
  ConfigPath,
} from './config.js'
export { HTTP_METHODS } from './types.js'
export type {
  AppFactory,
  AppOptions,
  CommandClass,
  CommandContext,
  HttpMethod,
  Handler,
  HandlerRef,
  ControllerClass,
  Middleware,
  Next,
  Identity,
  BindingLoader,
} from './types.js'
export { Router } from './router/router.js'
export { RouterError } from './router/router-error.js'
export type { RouterErrorCode } from './router/router-error.js'
export type { JsonSchema, Route, RouteMatch, RouteResponse, RouteSchema } from './router/route.js'
export type { LegacyRequest } from './router/legacy.js'
export type { ClassicSet } from './router/classic.js'
export type { ClaimedPath, PathClaim } from './router/claimed-paths.js'
export {
  route,
  get,
  post,
  put,
  patch,
  del,
  head,
  options,
  controller,
} from './router/decorators.js'
export type { RouteOptions, ControllerOptions } from './router/decorators.js'
export { decomposeLegacy } from './router/legacy.js'
export type { Logger } from './logger.js'
export { consoleLogger, createConsoleLogger, silentLogger } from './logger.js'
export {
  MASK,
  SECRET_KEYS,
  createRedaction,
  isSecretKey,
  isSecretValue,
  normalizeKey,
  maskErrorMessage,
  maskPairs,
  maskQuery,
  decodeComponent,
  redact,
  redactString,
  reportedMessage,
} from './redact.js'
export type { Redaction, RedactOptions } from './redact.js'
export { enterMaintenance, leaveMaintenance, maintenanceFile } from './maintenance.js'
export type { MaintenanceProbe, MaintenanceStore } from './maintenance.js'
export { writeFileAtomic } from './files.js'
export { isProcessRunning } from './processes.js'
export { escapeHtml } from './http/error-page.js'
export { handlerName } from './route-compile.js'
export { documentResponses, responsesOf } from './middleware-responses.js'
export type { MiddlewareResponses } from './middleware-responses.js'
export { httpErrorReply } from './error-replies.js'
export { crossOriginHeaders } from './http/cross-origin.js'
export type { StaticOptions } from './http/static-files.js'
export type { InjectRequest, InjectResponse } from './http/inject.js'
