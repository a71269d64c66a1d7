// The built toolbar's routes: hashed files served by sirv for a year, plus two stable names that
// always revalidate (the classic script, and an ES module re-exporting the hashed one).
import { send, type Kernel, type RequestContext } from 'fw'
import type { ToolbarSettings } from './api.js'
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
 */
export function serveToolbar(
  kernel: Kernel,
  settings: ToolbarSettings,
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
  const script: ToolbarScript = {
    code: assets.inline,
    config: {
      apiPrefix: settings.apiPrefix ?? '/api',
      openapi: settings.openapi ?? '/openapi.json',
      devpanel: settings.devpanel ?? '/devpanel/logs',
      ...(settings.apiKeyHeader === undefined ? {} : { apiKeyHeader: settings.apiKeyHeader }),
      ...(settings.tokenKey === undefined ? {} : { tokenKey: settings.tokenKey }),
    },
  }
  // The API key only ever reaches pages in development, never a grant holder in production.
  const devScript =
    settings.apiKey === undefined
      ? script
      : { ...script, config: { ...script.config, apiKey: settings.apiKey } }
  return { script, devScript }
}
