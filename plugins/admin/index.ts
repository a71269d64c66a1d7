// The administration area (this plugin's README.md): a path prefix routed like the site, with its
// own theme, access floor, default controller and code directory. The plugin is registered always
// and active only when `admin.prefix` is set.
import { existsSync, readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  definePlugin,
  hasRParam,
  HTTP_METHODS,
  HttpError,
  httpErrorReply,
  messageOf,
  redirect,
  type ClassicSet,
  type ControllerClass,
  type Kernel,
  type Middleware,
  type Reply,
  type RequestContext,
  type Route,
} from 'fw'
import { adminErrors } from './errors.js'

/** Options of the admin plugin (code-level choices; the area itself is config). */
export interface AdminOptions {
  /**
   * The area's classic controllers: one module per controller, named by its file
   * (`users.js` → `/admin/users`), the class as its default export. Default:
   * `<app root>/<admin.area>/controllers`.
   */
  controllers?: string
  /** The area's templates, searched before the site's inside the area. Default: `<app root>/<admin.area>/views`. */
  views?: string
}

/** What `kernel.plugin('admin')` returns. */
export interface AdminApi {
  /** True when `admin.prefix` is set. */
  readonly active: boolean
  /** The area's base (`/admin`); the site base (`/`) when there is no area. */
  readonly url: string
  /** The site's base: `/`. */
  readonly siteUrl: string
  /**
   * A link into the area (README.md "Link helpers"): `adminUrl('users')` → `/admin/users`;
   * `adminUrl()` → the base ending in `/` (`/admin/`). With no area, links into the site (`/users`,
   * `/`).
   */
  adminUrl(path?: string): string
  /** True when the request is inside the area (its prefix was matched and removed for routing). */
  inArea(ctx: RequestContext): boolean
  /** The area's controllers, for listings. */
  readonly controllers: ClassicSet
}

declare module 'fw' {
  interface PluginApis {
    admin: AdminApi
  }
  interface FwConfig {
    admin: {
      /** The area's path prefix, one segment (`admin`); unset or empty: no area. */
      prefix: string | undefined
      /** The views theme inside the area. */
      theme: string | undefined
      /** The floor: the lowest usertype that reaches anything in the area. */
      min_usertype: number | undefined
      /** The controller the bare prefix opens (`/admin`); unset or empty: 404. */
      default_controller: string | undefined
      /** The folder of the area's code under the app root (default `Admin`). */
      area: string
    }
  }
  interface ContextState {
    /** Set by the admin plugin on a request inside the area. */
    adminArea?: true
  }
}

/** One path segment: no separator, no query or fragment, not `.`/`..`. */
const SEGMENT = /^(?!\.\.?$)[^/?#\s\\]+$/

/** The link helpers (README.md "Link helpers"), for a prefix (or none). */
function linkHelpers(prefix: string | undefined) {
  const url = prefix === undefined ? '/' : `/${prefix}`
  const adminUrl = (path = ''): string => {
    const rest = path.replace(/^\/+/, '')
    return prefix === undefined ? `/${rest}` : `${url}/${rest}`
  }
  return { url, siteUrl: '/', adminUrl }
}

/**
 * Requires a signed-in user of at least `usertype` (the area's floor never replaces a screen's own
 * check: README.md "The threat model"). As route middleware:
 * `kernel.middleware('staff', requireUsertype(90))`, then `.middleware('staff')` on a route. As a
 * helper in a classic action: `await requireUsertype(90, ctx)`, which throws the refusal.
 *
 * A guest is sent to sign in (a JSON client gets 401); a user below gets 403.
 */
export function requireUsertype(usertype: number): Middleware
export function requireUsertype(usertype: number, ctx: RequestContext): Promise<void>
export function requireUsertype(
  usertype: number,
  ctx?: RequestContext,
): Middleware | Promise<void> {
  if (ctx !== undefined) return refuseBelow(usertype, ctx)
  return async (c, next) => {
    await refuseBelow(usertype, c)
    return next()
  }
}

async function refuseBelow(usertype: number, ctx: RequestContext): Promise<void> {
  const refusal = await refusalBelow(usertype, ctx, 'forbid')
  if (refusal !== undefined) throw refusal
}

/**
 * What a request below `floor` gets, or undefined when its user reaches it: a guest is sent to sign
 * in (401 for JSON clients); a user below gets 403 (`forbid`) or is sent to the site root
 * (`home`, the area floor's rule 4).
 */
async function refusalBelow(
  floor: number,
  ctx: RequestContext,
  below: 'forbid' | 'home',
): Promise<HttpError | undefined> {
  const who = await ctx.identity()
  const json = ctx.wantsJson()
  if (who?.id === undefined) {
    const target = ctx.path + (ctx.querystring === '' ? '' : `?${ctx.querystring}`)
    const kernel = ctx.kernel
    const signIn = kernel.hasPlugin('auth') ? kernel.plugin('auth').signInUrl(target) : undefined
    if (json || signIn === undefined)
      return new HttpError(401, { error: 'unauthenticated', message: 'Sign in first.' })
    return new HttpError(302, {}, { headers: { location: signIn } })
  }
  if ((who.usertype ?? 0) >= floor) return undefined
  if (json || below === 'forbid')
    return new HttpError(403, { error: 'forbidden', message: 'Your account may not open this.' })
  return new HttpError(302, {}, { headers: { location: '/' } })
}

/**
 * A module's namespace as tsx gives it to the code it compiles: for a CommonJS module compiled from
 * ESM (a `.ts` file outside a `"type": "module"` package), its exports object. Done here so that
 * the module reads alike whether fw runs from its sources, compiled or built.
 */
function esModuleInterop(namespace: Record<string, unknown>): Record<string, unknown> {
  const value = namespace.default
  return value !== null && typeof value === 'object' && '__esModule' in value
    ? (value as Record<string, unknown>)
    : namespace
}

/** The area's classic controllers: one module per file, the class its default export. */
async function loadControllers(dir: string, into: ClassicSet): Promise<void> {
  if (!existsSync(dir)) return
  const files = readdirSync(dir).filter(
    (f) => /\.(?:m?js|ts)$/.test(f) && !f.endsWith('.d.ts') && !/\.test\.|\.map$/.test(f),
  )
  // One module per name: compiled `.js` first, the `.ts` source where there is no `.js`.
  const byName = new Map<string, string>()
  for (const file of files.sort((a, b) => Number(a.endsWith('.ts')) - Number(b.endsWith('.ts')))) {
    const name = basename(file, extname(file))
    if (!byName.has(name)) byName.set(name, join(dir, file))
  }
  for (const [name, file] of byName) {
    let module: Record<string, unknown>
    try {
      module = esModuleInterop((await import(pathToFileURL(file).href)) as Record<string, unknown>)
    } catch (cause) {
      const reason = `could not be imported (${messageOf(cause)})`
      throw adminErrors.error('FW_ERR_ADMIN_CONTROLLER_INVALID', { file, reason }, { cause })
    }
    const controller = [module.default, ...Object.values(module)].find(
      (v): v is ControllerClass => typeof v === 'function' && v.prototype !== undefined,
    )
    if (controller === undefined)
      throw adminErrors.error('FW_ERR_ADMIN_CONTROLLER_INVALID', {
        file,
        reason: 'exports no class',
      })
    into.register(name, controller)
  }
}

/** `fw route:list` rows for the area's controllers: `admin/users/index`, and the bare prefix. */
function areaRoutes(
  prefix: string,
  set: ClassicSet,
  defaultController: string | undefined,
): Route[] {
  const row = (path: string, controller: ControllerClass, action: string): Route => ({
    methods: HTTP_METHODS,
    path,
    query: undefined,
    handler: [controller, action],
    name: undefined,
    middleware: [],
    permissions: [],
    wheres: {},
    bindings: {},
    classic: true,
    schema: undefined,
    json: false,
  })
  return set
    .actions()
    .flatMap(({ name, controller, actions }) => [
      ...(name.toLowerCase() === defaultController?.toLowerCase() && actions.includes('index')
        ? [row(prefix, controller, 'index')]
        : []),
      ...actions.map((action) => row(`${prefix}/${name}/${action}`, controller, action)),
    ])
}

/**
 * The admin plugin. With `admin.prefix` set: a request whose first path segment is the prefix
 * (whole segment, case-sensitive) is routed without it, as the site's routes (declared routes,
 * then the area's classic controllers, then the site's, then legacy decomposition); the floor
 * `admin.min_usertype` is checked before any handler; the area's theme and templates apply.
 * `ctx.path`, the raw URL and every log line keep the prefix. Without a prefix: nothing per
 * request (no hook tap), and the link helpers give site links.
 *
 * @example
 * kernel.register(admin) // config: { admin: { prefix: 'admin', min_usertype: 50 } }
 */
export default definePlugin<AdminOptions | undefined, AdminApi>({
  name: 'admin',
  optionalDependsOn: ['auth', 'views'],
  config: {
    defaults: {
      admin: {
        prefix: undefined,
        theme: undefined,
        min_usertype: undefined,
        default_controller: undefined,
        area: 'Admin',
      },
    },
    schema: {
      'admin.prefix': 'string?',
      'admin.theme': 'string?',
      'admin.min_usertype': 'integer?',
      'admin.default_controller': 'string?',
      'admin.area': 'string',
    },
  },
  setup(kernel: Kernel, options = {}) {
    const config = kernel.config.admin
    const trimmed = config.prefix?.replace(/^\/+|\/+$/g, '')
    const prefix = trimmed === '' ? undefined : trimmed
    if (prefix !== undefined && !SEGMENT.test(prefix))
      throw adminErrors.error('FW_ERR_ADMIN_PREFIX_INVALID', { prefix: config.prefix ?? '' })
    if (!SEGMENT.test(config.area))
      throw adminErrors.error('FW_ERR_ADMIN_AREA_INVALID', { area: config.area })
    const links = linkHelpers(prefix)
    const controllers = kernel.router.classicSet()
    const api: AdminApi = {
      active: prefix !== undefined,
      ...links,
      inArea: (ctx) => ctx.state.adminArea === true,
      controllers,
    }
    // Views get the link helpers everywhere (`it.adminUrl('users')`, `it.URL`, `it.sURL`).
    if (kernel.hasPlugin('views')) {
      const helpers = { adminUrl: links.adminUrl, URL: links.url, sURL: links.siteUrl }
      kernel.plugin('views').share(() => helpers)
    }
    if (prefix === undefined) return api

    const areaDir = join(kernel.root, config.area)
    const viewPaths = [options.views ?? join(areaDir, 'views')] as const
    const { theme, min_usertype: floor } = config
    // Empty (or only slashes) is no default controller: the bare prefix answers 404, never `/`.
    const home = config.default_controller?.replace(/^\/+|\/+$/g, '') || undefined
    const bare = home === undefined ? undefined : `/${home}`
    const head = `/${prefix}`
    kernel.hooks.boot.tapPromise('admin', () =>
      loadControllers(options.controllers ?? join(areaDir, 'controllers'), controllers),
    )
    kernel.router.listRoutes(() => areaRoutes(prefix, controllers, home))

    // Inside the area: the prefix leaves the routing path, the area's look applies, the request is
    // routed (declared routes first, as outside, then the area's controllers; what neither answers
    // goes on to the site's controllers and legacy decomposition), and the floor is checked, before
    // any handler. Outside: one string comparison, synchronously, and no `route` tap at all.
    kernel.hooks.request.tap({ name: 'admin', stage: -100 }, (ctx) => {
      const path = ctx.routingPath
      if (!path.startsWith(head)) return undefined
      // A whole segment only: not `/administration`, `/admin.json`.
      if (path.length > head.length && path[head.length] !== '/') return undefined
      // A run of slashes counts as one, as the router reads it: `/admin//health` is `/admin/health`.
      const rest = path.slice(head.length).replace(/^\/{2,}/, '/')
      // Paths their plugins claim at the site root are routed as is: `/admin/health/check` → 404.
      if (kernel.router.isClaimed(rest)) return undefined
      ctx.state.adminArea = true
      if (rest === '' || rest === '/') {
        if (bare !== undefined) ctx.routingPath = bare // else left as is: 404
      } else ctx.routingPath = rest
      if (theme !== undefined) ctx.state.theme = theme
      ctx.state.viewPaths = viewPaths
      // A controller reached by its path decomposes the path without the prefix, and reports the
      // path as it arrived (`originalRequestNoChange`: `admin/users/edit/5`); `?r=` is its own.
      ctx.match = hasRParam(ctx.querystring)
        ? controllers.match(ctx.routingPath, ctx.querystring, ctx.query)
        : (kernel.router.find(ctx.method, ctx.routingPath, ctx.querystring) ??
          controllers.match(ctx.path, ctx.querystring, ctx.query, ctx.routingPath))
      if (floor === undefined) return undefined
      return refusalBelow(floor, ctx, 'home').then((refusal) =>
        refusal === undefined ? undefined : refusalReply(ctx, refusal),
      )
    })
    return api
  },
})

/** The reply of a refusal: a redirect, or the error as the kernel answers it (JSON or a page). */
function refusalReply(ctx: RequestContext, refusal: HttpError): Reply {
  const location = refusal.headers.location
  return location !== undefined ? redirect(location, 302) : httpErrorReply(ctx, refusal)
}

export { adminErrors } from './errors.js'
