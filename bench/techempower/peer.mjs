// What the two peers (fastify.mjs, polka.mjs) share, as their users would write it.
import { pathToFileURL } from 'node:url'

/** 1…10,000, the ids of `world`. */
export const randomId = () => 1 + Math.floor(Math.random() * 10_000)

/** `?queries=`: an integer clamped to 1…500; anything else is 1. */
export function queryCount(value) {
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : 1
  return n < 1 ? 1 : n > 500 ? 500 : n
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML. */
export const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ESCAPES[c])

/** True when the module at `url` is the script node was started with. */
export const isMain = (url) =>
  process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href
