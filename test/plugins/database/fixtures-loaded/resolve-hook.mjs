// The resolve hook of report-imports.mjs.
import { appendFileSync } from 'node:fs'

const out = process.env.FW_REPORT_IMPORTS

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (out !== undefined && resolved.url.includes('/node_modules/'))
    appendFileSync(out, `${resolved.url}\n`)
  return resolved
}
