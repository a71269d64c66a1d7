import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { silentLogger, type Kernel } from 'fw'
import { createRecordTracing } from '../../../plugins/telemetry/record-tracing.js'
import { DEFAULT_LIMITS } from '../../../plugins/telemetry/tracing-options.js'
import { createSdkTracing } from '../../../plugins/telemetry/trace.js'

/** How {@link traceBothPaths} traces: the service's name and the trace settings both paths share. */
export interface BothPathsOptions {
  service: string
  phaseSpans: boolean
  knownMethods: readonly string[]
}

/** The spans of both paths, once their requests are answered. */
export interface BothPaths {
  /** Waits for every answered request's spans: both paths finished, the records' batch flushed. */
  settle(): Promise<void>
  /** The OpenTelemetry SDK's spans, in the order they ended. */
  sdkSpans(): ReadableSpan[]
  /** fw's own span records (the plugin's `exporter` path), in the order they ended. */
  recordSpans(): ReadableSpan[]
}

/**
 * Traces every request of `kernel` both ways the telemetry plugin can, each into an in-memory
 * exporter: started on the request's arrival, finished after its response with the same end time,
 * as the plugin drives either. Tests compare the two lists, which must be alike
 * (span-records.test.ts, realtime's trace.test.ts).
 */
export function traceBothPaths(kernel: Kernel, options: BothPathsOptions): BothPaths {
  const settings = { phaseSpans: options.phaseSpans, knownMethods: new Set(options.knownMethods) }
  const sdkExporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(sdkExporter)],
  })
  const sdk = createSdkTracing(provider.getTracer('fw', '0.1.0'), provider, settings)
  const recordsExporter = new InMemorySpanExporter()
  const records = createRecordTracing({
    exporter: recordsExporter,
    sampleRatio: 1,
    limits: DEFAULT_LIMITS,
    origin: {
      resource: { attributes: { 'service.name': options.service } },
      scope: { name: 'fw', version: '0.1.0', schemaUrl: undefined },
    },
    settings,
    logger: silentLogger,
  })
  kernel.hooks.request.tap({ name: 'both-paths', stage: -2000 }, (ctx) => {
    sdk.start(ctx)
    records.start(ctx)
    return undefined
  })
  kernel.hooks.annotate.tap({ name: 'both-paths', stage: 1000 }, (reply, ctx) => {
    const end = ctx.log.now()
    setImmediate(() => {
      sdk.finish(ctx, reply.status, end)
      records.finish(ctx, reply.status, end)
    })
  })
  return {
    async settle() {
      await new Promise((resolve) => setImmediate(resolve))
      await records.flush()
    },
    sdkSpans: () => sdkExporter.getFinishedSpans(),
    recordSpans: () => recordsExporter.getFinishedSpans(),
  }
}
