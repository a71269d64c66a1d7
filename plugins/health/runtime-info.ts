// What `/health/phpinfo` shows: the Node runtime (versions, platform, memory) and the app's
// configuration with secrets masked.
import { arch, cpus, hostname, platform, release, totalmem, freemem, uptime } from 'node:os'
import { getHeapStatistics } from 'node:v8'
import type { Kernel } from 'fw'

/** A titled section of name/value rows. */
export interface InfoSection {
  title: string
  rows: [string, string][]
}

const SECRET_NAME = /(^|_|\.)(key|secret|password|passwd|pass|token|credentials?)($|_)/i

/** A value fit to show: secrets as `***`, credentials inside URLs masked. */
export function maskValue(name: string, value: unknown): string {
  if (value === undefined) return '(unset)'
  if (SECRET_NAME.test(name) && !/(^|_)(private|public)_key$/.test(name)) return '***'
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.replace(/(\w+:\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@')
}

function flatten(prefix: string, value: unknown, rows: [string, string][]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(prefix ? `${prefix}.${k}` : k, v, rows)
    return
  }
  rows.push([prefix, maskValue(prefix.split('.').at(-1) ?? prefix, value)])
}

const mb = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`

/** The sections of the runtime page. */
export function runtimeInfo(kernel: Kernel): InfoSection[] {
  const mem = process.memoryUsage()
  const heap = getHeapStatistics()
  const config: [string, string][] = []
  flatten('', kernel.config, config)
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
