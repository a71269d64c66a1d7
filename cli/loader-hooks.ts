// The shapes Node's module customization hooks (`module.register`) exchange, as fw's own hooks use
// them (cli/dev/version-hooks.ts, cli/compile/library-hooks.ts): only what they read or answer.
// Types only, so a hooks module that imports them loads nothing more on the hooks thread.

/** What `resolve` is told about the import. */
export interface ResolveContext {
  readonly parentURL?: string | undefined
}

/** What `resolve` answers. */
export interface Resolved {
  readonly url: string
  readonly format?: string | null | undefined
  readonly shortCircuit?: boolean
}

/** What `load` answers. */
export interface Loaded {
  readonly format?: string | null | undefined
  readonly source?: string | ArrayBuffer | Uint8Array | null | undefined
  readonly shortCircuit?: boolean
}

/** The next `resolve` in the chain. */
export type NextResolve = (specifier: string, context: ResolveContext) => Promise<Resolved>
