import { definePluginErrors, type CodesOf } from 'fw'

/** The telemetry plugin's error codes: mistakes in its options, and who may read `GET /metrics`. */
export const telemetryErrors = definePluginErrors('telemetry', {
  FW_ERR_TELEMETRY_OPTION_INVALID: {
    when: 'An option of `kernel.register(telemetry, options)` has a value it cannot take: `sampleRatio` outside 0…1, a `batch` limit that is not a whole number in its range, `maxExportBatchSize` above `maxQueueSize`, an `exporter` without `export()` and `shutdown()`.',
    fix: "Give the value the message names (the plugin's README lists each option, its range and default).",
    message: ({ option, value, expected }: { option: string; value: string; expected: string }) =>
      `The telemetry option ${option} is ${value}; ${expected}.`,
  },
  FW_ERR_TELEMETRY_TRACE_PATHS: {
    when: '`kernel.register(telemetry, options)` got both `exporter` (fw builds the spans and exports them in batches) and `tracerProvider` (the OpenTelemetry SDK builds them): a request is traced one way.',
    fix: 'Keep one: `exporter` (cheaper; the same spans), or `tracerProvider` when span processors of your own must see every span.',
    message:
      'The telemetry plugin got both an exporter and a tracerProvider; give one of them (exporter is the cheaper, with the same spans).',
  },
  FW_ERR_TELEMETRY_METRICS_UNAUTHENTICATED: {
    when: '`GET /metrics` came with neither the configured `telemetry.metrics_token` as a bearer token nor a signed-in user. Answered 401 with `WWW-Authenticate: Bearer`.',
    fix: 'Send `Authorization: Bearer <telemetry.metrics_token>`, or sign in as a user at or above `telemetry.metrics_min_usertype`.',
    status: 401,
    error: 'unauthenticated',
    message: 'The metrics need a token or a signed-in user.',
  },
  FW_ERR_TELEMETRY_METRICS_FORBIDDEN: {
    when: '`GET /metrics` came from a signed-in user below `telemetry.metrics_min_usertype`. Answered 403.',
    fix: 'Sign in as a user at or above the floor, or use the metrics token.',
    status: 403,
    error: 'forbidden',
    message: 'The metrics need a higher usertype.',
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof telemetryErrors> {}
}
