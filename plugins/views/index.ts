// The views plugin: Eta templates with layouts, partials, themes and lookup paths; turns `view()`
// replies into HTML in the `render` hook.
import { join } from 'node:path'
import { definePlugin, type RequestContext } from 'fw'
import { viewsProjection } from './debug-projection.js'
import { ViewRenderer, type RenderResult } from './engine.js'
import { TemplateLookup, type LookupScope } from './lookup.js'
import './events.js'

/** Options of the views plugin. */
export interface ViewsOptions {
  /** Template directories, searched in order. Default: `[<kernel.root>/views]`. */
  paths?: string[]
  /** The theme: `themes/<theme>/` inside each directory is tried first. Default: none. */
  theme?: string
  /** The template file extension. Default: `'.eta'`. */
  extension?: string
  /** Keep resolved paths and compiled templates. Default: on, except in development mode. */
  cache?: boolean
}

/** What other plugins get from `kernel.plugin('views')`. */
export interface ViewsApi {
  /**
   * Searches `dir` before every other template directory (the admin area puts its own first).
   *
   * @example
   * kernel.plugin('views').prependPath(join(import.meta.dirname, 'views'))
   */
  prependPath(dir: string): void
  /** Searches `dir` after every other template directory. */
  appendPath(dir: string): void
  /** The template directories, in search order. */
  paths(): readonly string[]
  /**
   * Renders a template to HTML. With `ctx`, the request's theme (`ctx.state.theme`) applies and a
   * `view.rendered` event is recorded in its log.
   */
  render(template: string, data?: Record<string, unknown>, ctx?: RequestContext): Promise<string>
  /** The file a template name resolves to (for `ctx`'s theme), or `undefined` when there is none. */
  resolve(template: string, ctx?: RequestContext): string | undefined
  /**
   * Data every template gets, under the render's own (which wins on a name clash): `provide`
   * runs once per render with the request, when there is one. The admin plugin gives views
   * `adminUrl`, `URL` and `sURL` so.
   *
   * @example
   * kernel.plugin('views').share((ctx) => ({ user: ctx?.state.user }))
   */
  share(provide: (ctx: RequestContext | undefined) => Record<string, unknown>): void
}

declare module 'fw' {
  interface PluginApis {
    views: ViewsApi
  }
  interface ContextState {
    /** The theme for this request's views; overrides the views plugin's `theme` option. */
    theme?: string
    /**
     * Template directories searched before the plugin's own, for this request only (an area's
     * templates, never searched outside it).
     */
    viewPaths?: readonly string[]
  }
}

/**
 * Renders `view(template, data, status)` replies with Eta: HTML-escaped by default, layouts and
 * partials resolved through themes and lookup paths.
 *
 * @example
 * kernel.register(views, { theme: 'dark' })
 * kernel.router.get('products', () => view('products/index', { products }))
 */
const views = definePlugin({
  name: 'views',
  // debug: the `_debug` payload's `views` key.
  optionalDependsOn: ['debug'],
  setup(kernel, options: ViewsOptions = {}): ViewsApi {
    const lookup = new TemplateLookup(
      options.paths ?? [join(kernel.root, 'views')],
      options.extension ?? '.eta',
      options.cache ?? !kernel.isDevelopment(),
    )
    const renderer = new ViewRenderer(lookup, {
      cache: options.cache ?? !kernel.isDevelopment(),
      debug: kernel.isDevelopment(),
    })
    const scopeOf = (ctx?: RequestContext): LookupScope => ({
      theme: ctx?.state.theme ?? options.theme,
      first: ctx?.state.viewPaths,
    })
    const shared: Array<(ctx: RequestContext | undefined) => Record<string, unknown>> = []

    const api: ViewsApi = {
      prependPath: (dir) => lookup.prepend(dir),
      appendPath: (dir) => lookup.append(dir),
      paths: () => lookup.paths,
      resolve: (template, ctx) => renderer.resolve(template, scopeOf(ctx)),
      share: (provide) => void shared.push(provide),
      async render(template, data = {}, ctx) {
        const result = await renderer.render(template, withShared(data, ctx), scopeOf(ctx))
        return rendered(template, result, ctx)
      },
    }
    /** The render's data over every `share()`d provider's (the render's own win). */
    function withShared(data: Record<string, unknown>, ctx: RequestContext | undefined) {
      if (shared.length === 0) return data
      const provided = shared.map((provide) => provide(ctx))
      return Object.assign({}, ...provided, data) as Record<string, unknown>
    }
    /** The render's `view.rendered` event, in the request's log; the HTML. */
    const rendered = (template: string, result: RenderResult, ctx: RequestContext | undefined) => {
      ctx?.log.record('view.rendered', { template, file: result.file, duration: result.duration })
      return result.html
    }

    if (kernel.hasPlugin('debug')) kernel.plugin('debug').project('views', viewsProjection)

    // The reply object is kept: its status (a `view('x', {}, 404)`) and headers stay as they are.
    // A synchronous tap: most replies are no view, and pass through with no promise.
    kernel.hooks.render.tap({ name: 'views', stage: -10 }, (reply, ctx) => {
      const body = reply.body
      if (body.kind !== 'view') return reply
      // A page that waits for nothing is rendered at once: no promise (see `renderNow`).
      const data = withShared(body.data, ctx)
      const now = renderer.renderNow(body.template, data, scopeOf(ctx))
      if (now !== undefined) {
        reply.body = { kind: 'html', value: rendered(body.template, now, ctx) }
        return reply
      }
      return renderer.renderWaiting(body.template, data, scopeOf(ctx)).then((result) => {
        reply.body = { kind: 'html', value: rendered(body.template, result, ctx) }
        return reply
      })
    })
    return api
  },
})

export default views
export { viewErrors } from './errors.js'
