import type { CorsPolicy } from './cors.js'

/** An application the API-key checker recognised. */
export interface ApiApplication {
  /** The application's row id, when it has one. */
  readonly id?: number | string
  readonly name: string
}

/** What the API middleware learnt about one request. */
export interface ApiRequestState {
  /** Set by `cors`: the policy in force and the request's `Origin`. */
  cors?: { readonly policy: CorsPolicy; readonly origin: string | undefined }
  /** Set by `contentType`: the negotiated representation of JSON replies. */
  format?: 'json' | 'xml'
  /** Set by `apiKey`: the application whose key came with the request. */
  application?: ApiApplication
  /** Set by `apiKey` and `unified`: how the caller was authenticated. */
  via?: 'apiKey' | 'accessToken' | 'userAuth' | 'session'
}

declare module 'fw' {
  interface EventMap {
    /**
     * An API key authenticated the request (the `apiKey` middleware): the application's name,
     * never the key. The debug payload's `auth` reports it (`what: "apiKey"`).
     */
    'api.key.accepted': { application: string }
  }
  interface ContextState {
    /** The API middleware's findings (`fw/plugins/api`). */
    api?: ApiRequestState
  }
}

export {}
