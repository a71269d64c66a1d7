// What the auth plugin adds to the kernel's types: its event, the identity fields, request state.

/** The credential an identity came from (README.md "Hooks and events", `auth.resolved`). */
export type AuthCredential = 'accessToken' | 'userAuth' | 'session'

/** Where the credential was read (a header name, or the session cookie). */
export type AuthSource = 'Authorization' | 'accessToken' | 'userAuth' | 'cookie'

/** The identity claims of a token that may be reported (README.md "Hooks and events"). */
export interface ReportedClaims {
  sub?: string
  iss?: string
  aud?: string | string[]
  iat?: number
  exp?: number
  nbf?: number
  jti?: string
  userid?: number
  username?: string
}

declare module 'fw' {
  interface PhaseNames {
    /** Loading the web session of a request that carries its cookie. */
    session: true
  }
  interface EventMap {
    /**
     * Who the request is from, as the auth plugin found out (or created, on a login; or ended, on
     * a logout). `user` is null for anonymous. The token itself never appears; `claims` are the
     * identity claims only: of a token that verified, or, with `unverified: true`, of a refused
     * one, read without verification (then `expires` is its `exp` claim).
     */
    'auth.resolved': {
      user: { id: number; username: string; usertype: number } | null
      credential: AuthCredential | null
      source: AuthSource | null
      /** Unix seconds the credential expires at, or null: never (or anonymous). */
      expires: number | null
      claims?: ReportedClaims
      /** True when `claims` (and `expires`) come from a refused token, read without verifying it. */
      unverified?: true
      /** Why a presented credential was refused (`invalid`, `expired`, `revoked`, `csrf`, …). */
      refused?: string
      /** `login`, `login2fa`, `logout`, `web-login`, `web-logout` when a handler set the identity. */
      action?: string
    }
  }

  interface Identity {
    email?: string
    /** The stored token's id (`jti`, or the web session's row id). */
    tokenId?: string
    /** Unix seconds the credential expires at; null: never. */
    expires?: number | null
    /**
     * For a web session: true when the request carried the session's `X-CSRF-Token`. A
     * state-changing call from a session is only ever authenticated with it.
     */
    csrf?: boolean
  }

  interface ContextState {
    /** Why a credential presented with this request was refused (for the API middleware's 403). */
    authRefused?: { credential: AuthCredential; reason: string }
  }
}

export {}
