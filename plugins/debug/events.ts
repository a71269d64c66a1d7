// The events the debug plugin declares: a service's construction and a measured service call;
// and its phase, building the `_debug` payload or the toolbar.
declare module 'fw' {
  interface PhaseNames {
    /** Building the debug payload and injecting it (`_debug`, the toolbar). */
    debugbar: true
  }
  interface EventMap {
    /** A service was constructed while answering this request (`recordService(name)`). */
    'service.constructed': { name: string }
    /** A service call wrapped in `measure(name, fn)` finished (or threw: `failed`). */
    'service.measured': { name: string; start: number; duration: number; failed: boolean }
  }
}

export {}
