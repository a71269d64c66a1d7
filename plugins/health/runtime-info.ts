// What `/health/phpinfo` shows: the Node runtime (versions, platform, memory) and the app's
// configuration with secrets masked by the kernel's one rule (docs/redaction.md).
import { arch, cpus, hostname, platform, release, totalmem, freemem, uptime } from 'node:os'
import { getHeapStatistics } from 'node:v8'
import { createRedaction, MASK, redactString, type Kernel, type Redaction } from 'fw'

/** A titled section of name/value rows. */
export interface InfoSection {
  title: string
  rows: [string, string][]
}

const builtIn = createRedaction()

/**
 * A value fit to show: `***` when its name is secret under `redaction` (the kernel's; the built-in
 * list without one), credentials and passwords inside URLs masked, nested values redacted.
 */
export function maskValue(name: string, value: unknown, redaction: Redaction = builtIn): string {
  if (value === undefined) return '(unset)'
  if (redaction.isSecretKey(name)) return MASK
  return typeof value === 'string' ? redactString(value) : JSON.stringify(redaction.redact(value))
}

/** One row per leaf; a secret-named object is one masked row, like `redact` masks it whole. */
function flatten(
  prefix: string,
  value: unknown,
  rows: [string, string][],
  redaction: Redaction,
): void {
  const name = prefix.split('.').at(-1) ?? prefix
  if (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(prefix !== '' && redaction.isSecretKey(name))
  ) {
    for (const [k, v] of Object.entries(value))
      flatten(prefix ? `${prefix}.${k}` : k, v, rows, redaction)
    return
  }
  rows.push([prefix, maskValue(name, value, redaction)])
}

const mb = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`

/** The sections of the runtime page. */
export function runtimeInfo(kernel: Kernel): InfoSection[] {
  const mem = process.memoryUsage()
  const heap = getHeapStatistics()
  const config: [string, string][] = []
  flatten('', kernel.config, config, kernel.redaction)
  return [
    {
      title: 'Versions',
      rows: Object.entries(process.versions).map(([k, v]) => [k, String(v)]),
    },
    {
      title: 'Platform',
      rows: [
        ['platform', platform()],
        ['arch', arch()],
        ['release', release()],
        ['hostname', hostname()],
        ['cpus', String(cpus().length)],
        ['pid', String(process.pid)],
        ['process uptime', `${Math.round(process.uptime())} s`],
        ['system uptime', `${Math.round(uptime())} s`],
        ['exec path', process.execPath],
        ['exec argv', process.execArgv.join(' ')],
        ['NODE_ENV', process.env.NODE_ENV ?? '(unset)'],
        ['app root', kernel.root],
        ['development mode', String(kernel.isDevelopment())],
      ],
    },
    {
      title: 'Memory',
      rows: [
        ['rss', mb(mem.rss)],
        ['heap used', mb(mem.heapUsed)],
        ['heap total', mb(mem.heapTotal)],
        ['heap limit', mb(heap.heap_size_limit)],
        ['external', mb(mem.external)],
        ['array buffers', mb(mem.arrayBuffers)],
        ['system total', mb(totalmem())],
        ['system free', mb(freemem())],
      ],
    },
    { title: 'Configuration', rows: config },
  ]
}
