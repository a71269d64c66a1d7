// Which way requests are traced, from the plugin's options, checked at setup: fw's span
// records to an `exporter`, the SDK through a `tracerProvider` (given, or the global one), or not
// at all. The chosen module loads at boot, so that an app that traces nothing does not import it.
import type * as OtelApi from '@opentelemetry/api'
import type { TracerProvider } from '@opentelemetry/api'
import type { InstrumentationScope } from '@opentelemetry/core'
import { importOptional, requireOptional, type Kernel } from 'fw'
import { telemetryErrors } from './errors.js'
import type { TraceSettings } from './span-attributes.js'
import type { BatchLimits, ResolvedLimits, TelemetryOptions, Tracing } from './types.js'
import type { SpanResource } from './span-records.js'

export const DEFAULT_LIMITS: ResolvedLimits = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30000,
}

/** fw's version, as the instrumentation scope (and `telemetry.sdk.version`) of its spans. */
const VERSION = '0.1.0'

function invalid(option: string, value: unknown, expected: string): Error {
  return telemetryErrors.error('FW_ERR_TELEMETRY_OPTION_INVALID', {
    option,
    value: typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value)),
    expected,
  })
}

/** `sampleRatio`, checked: a number from 0 to 1 (default 1). */
export function resolveRatio(ratio: number | undefined): number {
  if (ratio === undefined) return 1
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1))
    throw invalid('sampleRatio', ratio, 'give a number from 0 (no new trace) to 1 (every one)')
  return ratio
}

/** `batch`, checked, with the defaults of the SDK's `BatchSpanProcessor`. */
export function resolveLimits(batch: BatchLimits | undefined): ResolvedLimits {
  const limits = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof ResolvedLimits>) {
    const value = batch?.[key]
    if (value === undefined) continue
    const floor = key === 'scheduledDelayMillis' ? 0 : 1
    if (!Number.isSafeInteger(value) || value < floor)
      throw invalid(`batch.${key}`, value, `give a whole number from ${floor} up`)
    limits[key] = value
  }
  if (limits.maxExportBatchSize > limits.maxQueueSize)
    throw invalid(
      'batch.maxExportBatchSize',
      limits.maxExportBatchSize,
      `give at most maxQueueSize (${limits.maxQueueSize}): a batch comes out of the queue`,
    )
  return limits
}

/** The spans' resource: the one given, else `service.name` and `telemetry.sdk.*`. */
export function resolveResource(
  resource: SpanResource | undefined,
  serviceName: string,
): SpanResource {
  return (
    resource ?? {
      attributes: {
        'service.name': serviceName,
        'telemetry.sdk.language': 'nodejs',
        'telemetry.sdk.name': 'fw',
        'telemetry.sdk.version': VERSION,
      },
    }
  )
}

/** The provider behind the API's proxy (the global one), or the provider itself. */
/**
 * Whether an OpenTelemetry SDK registered a global tracer provider, read from the slot the API
 * keeps on `globalThis` (`Symbol.for('opentelemetry.js.api.1')`, shared by every copy of API 1.x,
 * so that copies agree): an app that traces nothing then never loads the API (~40 files, ~20 ms of
 * every `fw` command that boots the app).
 */
function globalProviderRegistered(): boolean {
  const slot = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ]
  return slot?.trace !== undefined
}

function globalProvider(): TracerProvider {
  const { trace } = requireOptional<typeof OtelApi>('@opentelemetry/api', TRACING)
  return trace.getTracerProvider()
}

function delegateOf(provider: TracerProvider): TracerProvider {
  return (provider as { getDelegate?: () => TracerProvider }).getDelegate?.() ?? provider
}

/** What needs the OpenTelemetry packages, as FW_ERR_PACKAGE_MISSING names it. */
const TRACING = "the telemetry plugin's tracing"

/**
 * The OpenTelemetry packages the tracing modules import (optional peer dependencies), loaded first
 * so that a missing one is reported by name rather than as a module of fw's that failed to load.
 */
async function tracingPackages(): Promise<void> {
  await importOptional('@opentelemetry/api', TRACING)
  await importOptional('@opentelemetry/core', TRACING)
}

/**
 * How requests are traced, checked now and loaded at boot; undefined when they are not (no
 * exporter, no tracer provider given nor registered globally).
 */
export function tracingLoader(
  kernel: Kernel,
  options: TelemetryOptions,
  settings: TraceSettings,
): (() => Promise<Tracing>) | undefined {
  const sampleRatio = resolveRatio(options.sampleRatio)
  const limits = resolveLimits(options.batch)
  const { exporter } = options
  if (exporter !== undefined) {
    if (options.tracerProvider !== undefined)
      throw telemetryErrors.error('FW_ERR_TELEMETRY_TRACE_PATHS')
    if (typeof exporter?.export !== 'function' || typeof exporter.shutdown !== 'function')
      throw invalid('exporter', exporter, 'give an OpenTelemetry SpanExporter (export, shutdown)')
    const { config } = kernel
    const scope: InstrumentationScope = { name: 'fw', version: VERSION, schemaUrl: undefined }
    const resource = resolveResource(
      options.resource,
      config.telemetry.service_name ?? config.app.name,
    )
    return async () => {
      await tracingPackages()
      return (await import('./record-tracing.js')).createRecordTracing({
        exporter,
        sampleRatio,
        limits,
        origin: { resource, scope },
        settings,
        logger: kernel.logger,
      })
    }
  }
  if (options.tracerProvider === undefined && !globalProviderRegistered()) return undefined
  const provider = delegateOf(options.tracerProvider ?? globalProvider())
  // The API's own provider answers no-op tracers: nothing to trace with.
  if (provider.constructor.name === 'NoopTracerProvider') return undefined
  const tracer = provider.getTracer('fw', VERSION)
  return async () => {
    await tracingPackages()
    return (await import('./trace.js')).createSdkTracing(tracer, provider, settings)
  }
}
