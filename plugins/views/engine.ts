import { performance } from 'node:perf_hooks'
import { Eta, EtaParseError, type Options } from 'eta'
import { FwError } from 'fw'
import { renderFailed, viewNotFound } from './errors.js'
import type { LookupScope, TemplateLookup } from './lookup.js'

/** What one render produced. */
export interface RenderResult {
  readonly html: string
  /** The file the template name resolved to. */
  readonly file: string
  /** Milliseconds, layout and partials included. */
  readonly duration: number
}

/**
 * Eta with fw's lookup: every name Eta resolves (the page, `layout(…)`, `include(…)`) goes through
 * the {@link TemplateLookup}, themed with the theme of the render in progress. Eta calls
 * `this.resolvePath(name, { filepath: <including file> })` with `this` = the engine the render
 * started on, so a render starts on a prototype-linked copy whose `resolvePath` knows its theme
 * (one small object per render); the compiled-template cache, keyed by file, stays shared.
 */
class LookupEta extends Eta {
  readonly #lookup: TemplateLookup

  constructor(lookup: TemplateLookup, config: ConstructorParameters<typeof Eta>[0]) {
    super(config)
    this.#lookup = lookup
    this.resolvePath = this.#resolverFor(undefined)
  }

  /** A copy of this engine that resolves names in `scope` (its theme and first directories). */
  themed(scope: LookupScope | undefined): Eta {
    const copy = Object.create(this) as Eta
    copy.resolvePath = this.#resolverFor(scope)
    return copy
  }

  #resolverFor(
    scope: LookupScope | undefined,
  ): (template: string, options?: Partial<Options>) => string {
    const lookup = this.#lookup
    return (template, options) => {
      const from = options?.filepath || undefined
      const file = lookup.find(template, scope, from)
      if (file === undefined) throw viewNotFound(template, lookup.candidates(template, scope, from))
      return file
    }
  }
}

/** Renders templates by name through Eta, HTML-escaping `<%= %>` and passing `<%~ %>` through. */
export class ViewRenderer {
  readonly #eta: LookupEta
  readonly #lookup: TemplateLookup
  /** Pages found to need Eta's async mode (see `renderNow`). */
  readonly #waiting = new Set<string>()

  constructor(lookup: TemplateLookup, options: { cache: boolean; debug: boolean }) {
    this.#lookup = lookup
    this.#eta = new LookupEta(lookup, {
      autoEscape: true,
      cache: options.cache,
      // Line numbers and source excerpts in errors: worth their runtime cost in development only.
      debug: options.debug,
    })
  }

  /** The file `template` resolves to in `scope`, or `undefined`. */
  resolve(template: string, scope: LookupScope | undefined): string | undefined {
    return this.#lookup.find(template, scope)
  }

  /**
   * Renders `template` with `data` (as `it` in the template). The whole page is built before this
   * resolves: a template that throws leaves nothing half-written. Rejects with
   * `FW_ERR_VIEW_NOT_FOUND` (the page, its layout or a partial is missing) or
   * `FW_ERR_VIEW_RENDER_FAILED` (the template threw; the original error is the cause).
   */
  async render(
    template: string,
    data: Record<string, unknown>,
    scope: LookupScope | undefined,
  ): Promise<RenderResult> {
    return this.renderNow(template, data, scope) ?? this.renderWaiting(template, data, scope)
  }

  /** Renders in Eta's async mode: for a page `renderNow` found to await. */
  async renderWaiting(
    template: string,
    data: Record<string, unknown>,
    scope: LookupScope | undefined,
  ): Promise<RenderResult> {
    const file = this.#find(template, scope)
    const started = performance.now()
    let html: string
    try {
      html = await this.#eta.themed(scope).renderAsync(template, data)
    } catch (error) {
      throw failure(error, template, file)
    }
    return { html, file, duration: performance.now() - started }
  }

  /**
   * Renders as {@link render} does, synchronously, throwing what it would reject with; undefined
   * when the page needs Eta's async mode (it, its layout or a partial uses `await`: it does not
   * compile without), which `renderWaiting` then provides. A page is tried synchronously until it
   * was found to wait, and from then on left to `renderWaiting`: most pages wait for nothing, and
   * answer without a promise.
   */
  renderNow(
    template: string,
    data: Record<string, unknown>,
    scope: LookupScope | undefined,
  ): RenderResult | undefined {
    const file = this.#find(template, scope)
    if (this.#waiting.has(file)) return undefined
    const started = performance.now()
    let html: string
    try {
      html = this.#eta.themed(scope).render(template, data)
    } catch (error) {
      if (notCompiledIn(error)) {
        this.#waiting.add(file)
        return undefined
      }
      throw failure(error, template, file)
    }
    return { html, file, duration: performance.now() - started }
  }

  #find(template: string, scope: LookupScope | undefined): string {
    const file = this.#lookup.find(template, scope)
    if (file === undefined) throw viewNotFound(template, this.#lookup.candidates(template, scope))
    return file
  }
}

/** What a failed render throws: a missing layout or partial as itself, else the render failure. */
function failure(error: unknown, template: string, file: string): FwError {
  // Also when Eta's debug mode wrapped it.
  return fwErrorIn(error) ?? renderFailed(template, file, error)
}

/**
 * True when `error` comes from a template that did not compile (Eta's parse error, also wrapped):
 * outside Eta's async mode, that is what a template that `await`s does. Rendered in async mode, such
 * a page either renders or fails with its real syntax error.
 */
function notCompiledIn(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof EtaParseError) return true
    e = e.cause
  }
  return false
}

/** The FwError `error` is, or wraps through its `cause` chain. */
function fwErrorIn(error: unknown): FwError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof FwError) return e
    e = e.cause
  }
  return undefined
}
