// The inline delivery, for server-rendered pages: the page's own request comes from the
// `fw-debug-data` island; every later `fetch` and `XMLHttpRequest` is wrapped and recorded. A
// second copy of this script on the same page finds `window.__fwDebugBar` and does nothing.
import { createBar, existing } from './boot.js'
import { wrapFetch, wrapXhr } from './capture.js'
import type { Payload, ToolbarConfig } from './payload.js'

;(() => {
  try {
    if (existing() !== undefined) return
    const script = document.currentScript as HTMLScriptElement | null
    let config: ToolbarConfig = {}
    try {
      config = JSON.parse(script?.dataset.config ?? '{}') as ToolbarConfig
    } catch {
      // a broken config only loses the API tab's settings
    }
    const bar = createBar(config, 'inline', script?.nonce ?? '')
    const sink = bar.add.bind(bar)
    wrapFetch(sink)
    wrapXhr(sink)
    const island = document.getElementById('fw-debug-data')
    if (island !== null) {
      try {
        const payload = JSON.parse(island.textContent ?? '') as unknown
        if (payload !== null && typeof payload === 'object') bar.addOwn(payload as Payload)
      } catch {
        // an unreadable island: the bar still records the page's later requests
      }
    }
  } catch {
    // the toolbar never breaks the page it inspects
  }
})()
