// The page script of `fw dev` (served at /_fw/dev/client.js, development only): listens on the
// reload stream, reloads the page once a change is served, shows what changed after the reload,
// and shows a file that failed to load in an overlay until a save fixes it. Plain browser
// JavaScript, no build step: it is small and runs as it is written here.
export const DEV_CLIENT = `(() => {
  if (window.__fwDev) return
  window.__fwDev = true
  const KEY = 'fw.dev.changed'
  let build
  const box = (id, css) => {
    let el = document.getElementById(id)
    if (!el) {
      el = document.createElement('div')
      el.id = id
      el.setAttribute('style', css)
      document.body.appendChild(el)
    }
    return el
  }
  const line = (parent, tag, text, css) => {
    const el = document.createElement(tag)
    el.textContent = text
    if (css) el.setAttribute('style', css)
    parent.appendChild(el)
    return el
  }
  const hideOverlay = () => document.getElementById('fw-dev-overlay')?.remove()
  const showOverlay = (failure) => {
    const el = box('fw-dev-overlay', 'position:fixed;inset:0;z-index:2147483647;background:rgba(20,20,24,.92);color:#eee;font:14px/1.5 ui-monospace,monospace;padding:32px;overflow:auto')
    el.replaceChildren()
    el.setAttribute('role', 'alert')
    line(el, 'div', 'fw dev: the last save did not load. The previous code is still serving; save a fix to go on.', 'color:#f88;font-weight:bold;margin-bottom:12px')
    if (failure.file) line(el, 'div', failure.file + ':' + failure.line + ':' + failure.column, 'color:#8cf')
    line(el, 'pre', failure.message, 'white-space:pre-wrap;margin:8px 0')
    if (failure.frame) line(el, 'pre', failure.frame, 'background:#000;padding:12px;border-radius:4px;white-space:pre')
  }
  const showNotice = (change) => {
    const el = box('fw-dev-notice', 'position:fixed;left:8px;bottom:48px;z-index:2147483646;background:#222;color:#eee;font:12px/1.4 ui-monospace,monospace;padding:6px 10px;border-radius:4px;opacity:.95')
    el.textContent = 'fw dev: ' + change.changed.join(', ') + ' changed: ' + change.rebuilt + ' in ' + change.ms + ' ms'
    setTimeout(() => el.remove(), 4000)
  }
  const source = new EventSource(${JSON.stringify('/_fw/dev/events')})
  source.addEventListener('hello', (event) => {
    const state = JSON.parse(event.data)
    // A new server (a restart) or a change served while the stream was down: reload.
    if (build !== undefined && state.build !== build && !state.failure) return location.reload()
    build = state.build
    if (state.failure) showOverlay(state.failure)
    else hideOverlay()
  })
  source.addEventListener('failure', (event) => showOverlay(JSON.parse(event.data)))
  source.addEventListener('reload', (event) => {
    try { sessionStorage.setItem(KEY, event.data) } catch {}
    location.reload()
  })
  let pending
  try { pending = sessionStorage.getItem(KEY); sessionStorage.removeItem(KEY) } catch {}
  if (pending) {
    const show = () => showNotice(JSON.parse(pending))
    if (document.body) show()
    else addEventListener('DOMContentLoaded', show)
  }
})()
`
