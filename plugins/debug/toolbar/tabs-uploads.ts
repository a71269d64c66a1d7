// The Uploads tab: the files a request received (the uploads plugin's `upload.received` events,
// projected under `uploads`) and the uploads it refused, of the selected request.
import { h, ms, table } from './dom.js'
import { listTab, type Tab } from './tab.js'

/** A size in bytes as people read it: `512 B`, `3.4 KB`, `200.0 MB`. */
function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`
}

export const UPLOADS: Tab = listTab('uploads', 'Uploads', (uploads) =>
  table(
    ['Field', 'File', 'Size', 'Type', 'Declared', 'Time'],
    uploads.map((u) =>
      u.refused === undefined
        ? [
            u.field ?? '',
            u.name ?? '',
            u.size === undefined ? '' : bytes(u.size),
            u.type ?? 'unknown',
            u.declared_type ?? '',
            u.ms === undefined ? '' : ms(u.ms),
          ]
        : [
            u.field ?? '',
            h('span', { class: 'bad' }, `refused: ${u.refused}`),
            '',
            '',
            '',
            u.status === undefined ? '' : String(u.status),
          ],
    ),
    'uploads',
  ),
)
