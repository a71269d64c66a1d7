// The events the views plugin records in a request's log.
declare module 'fw' {
  interface EventMap {
    /**
     * A template was rendered for this request: the name asked for, the file the lookup chose, and
     * how long it took in milliseconds (its layout and partials included).
     */
    'view.rendered': { template: string; file: string; duration: number }
  }
}

export {}
