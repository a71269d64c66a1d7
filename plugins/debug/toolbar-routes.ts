// The built toolbar's routes: hashed files served by sirv for a year, plus two stable names that
// always revalidate (the classic script, and an ES module re-exporting the hashed one).
import { send, type Kernel, type RequestContext } from 'fw'
import type { ApiDescription, ToolbarSettings } from './api.js'
import { TOOLBAR_MODULE_PATH, toolbarAssets } from './assets.js'
import { allowOrigin, type OriginPolicy } from './cross-origin.js'
import { TOOLBAR_PATH, type ToolbarScript } from './inject.js'

/** The toolbar's script element: for grant holders, and in development (with the API key). */
export interface ToolbarScripts {
  readonly script: ToolbarScript
  readonly devScript: ToolbarScript
}

/**
 * Serves the toolbar's files and returns the script element pages get. In development the assets
 * answer CORS for any origin, so a single-page app on another origin may import the module.
 * The settings are read on the first page, after every plugin's setup has told `described`
 * (test/plugins/debug/delivery.test.ts "told by the api and openapi plugins").
 */
export function serveToolbar(
  kernel: Kernel,
  settings: ToolbarSettings,
  described: ApiDescription,
  development: boolean,
  policy: OriginPolicy,
): ToolbarScripts {
  const assets = toolbarAssets()
  kernel.static(TOOLBAR_PATH.slice(1, TOOLBAR_PATH.lastIndexOf('/')), assets.dir, {
    maxAge: 31_536_000,
    immutable: true,
    crossOrigin: development,
  })
  const asset = (bytes: Uint8Array) => (ctx: RequestContext) => {
    const reply = send(bytes, 'text/javascript; charset=utf-8').header('cache-control', 'no-cache')
    return development ? allowOrigin(reply, ctx, true, policy) : reply
  }
  kernel.router.get(TOOLBAR_PATH.slice(1), asset(new TextEncoder().encode(assets.inline)))
  kernel.router.get(
    TOOLBAR_MODULE_PATH.slice(1),
    asset(new TextEncoder().encode(`export { record, reportError } from './${assets.module}'\n`)),
  )
  const code = assets.inline
  let config: Record<string, unknown> | undefined
  const configOf = (): Record<string, unknown> => (config ??= toolbarConfig(settings, described))
  const script: ToolbarScript = {
    code,
    get config() {
      return configOf()
    },
  }
  // The API key only ever reaches pages in development, never a grant holder in production.
  let withKey: Record<string, unknown> | undefined
  const devScript: ToolbarScript =
    settings.apiKey === undefined
      ? script
      : {
          code,
          get config() {
            return (withKey ??= { ...configOf(), apiKey: settings.apiKey })
          },
        }
  return { script, devScript }
}

/** The `data-config` of the script element: the `browser` option over what plugins told. */
function toolbarConfig(
  settings: ToolbarSettings,
  described: ApiDescription,
): Record<string, unknown> {
  const openapi = settings.openapi ?? described.document
  return {
    apiPrefix: settings.apiPrefix ?? described.prefix ?? '',
    ...(openapi === undefined ? {} : { openapi }),
    devpanel: settings.devpanel ?? '/devpanel/logs',
    ...(settings.apiKeyHeader === undefined ? {} : { apiKeyHeader: settings.apiKeyHeader }),
    ...(settings.tokenKey === undefined ? {} : { tokenKey: settings.tokenKey }),
  }
}
