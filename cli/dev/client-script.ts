// The page script of `fw dev` (served at /_fw/dev/client.js, development only): listens on the
// reload stream, reloads the page once a change is served, and hands what the page should show to
// the debug toolbar (`window.__fwDebugBar.dev`, plugins/debug/toolbar/dev-notices.ts): a file that
// failed to load, in the toolbar's overlay until a save fixes it, and after a reload what changed.
// A page without the toolbar (an app without the debug plugin) gets a plain overlay and a console
// line instead. Plain browser JavaScript, no build step: it is small and runs as written here.
export const DEV_CLIENT = `(() => {
  if (window.__fwDev) return
  window.__fwDev = true
  const KEY = 'fw.dev.changed'
  // The build this page was rendered at (its tag's data-build): a stream that opens after a change
  // was served says a later one in its hello, and the page reloads.
  const rendered = Number(document.currentScript && document.currentScript.dataset.build)
  let build = Number.isInteger(rendered) ? rendered : undefined
  let failure = null
  // The toolbar's notices once it is on the page: its inline script runs before this deferred one,
  // its module delivery may come later, so wait for the load event before doing without it.
  const withBar = (show) => {
    const dev = window.__fwDebugBar && window.__fwDebugBar.dev
    if (dev) return show(dev)
    if (document.readyState !== 'complete') return addEventListener('load', () => withBar(show), { once: true })
    show(undefined)
  }
  const plain = (f) => {
    document.getElementById('fw-dev-overlay')?.remove()
    if (!f) return
    const el = document.createElement('pre')
    el.id = 'fw-dev-overlay'
    el.setAttribute('role', 'alert')
    el.setAttribute('style', 'position:fixed;inset:0;z-index:2147483647;margin:0;padding:32px;overflow:auto;background:#141418;color:#eee;font:13px/1.5 ui-monospace,monospace;white-space:pre-wrap')
    el.textContent = 'fw dev: the last save did not load. The previous code is still serving; save a fix to go on.\\n\\n' +
      (f.file ? f.file + ':' + f.line + ':' + f.column + '\\n' : '') + f.message + (f.frame ? '\\n\\n' + f.frame : '')
    document.body.appendChild(el)
  }
  const show = (next) => {
    if (next === failure) return
    failure = next
    withBar((dev) => (dev ? dev.failure(failure) : plain(failure)))
  }
  const source = new EventSource(${JSON.stringify('/_fw/dev/events')})
  source.addEventListener('hello', (event) => {
    const state = JSON.parse(event.data)
    // A new server (a restart), or a change served before the stream opened or while it was down.
    if (build !== undefined && state.build !== build && !state.failure) return location.reload()
    build = state.build
    show(state.failure || null)
  })
  source.addEventListener('failure', (event) => show(JSON.parse(event.data)))
  source.addEventListener('reload', (event) => {
    try { sessionStorage.setItem(KEY, event.data) } catch {}
    location.reload()
  })
  let pending
  try { pending = sessionStorage.getItem(KEY); sessionStorage.removeItem(KEY) } catch {}
  if (pending) {
    const change = JSON.parse(pending)
    withBar((dev) => dev ? dev.served(change) :
      console.info('fw dev: ' + change.changed.join(', ') + ' changed: ' + change.rebuilt + ' (' + change.ms + ' ms)'))
  }
})()
`
