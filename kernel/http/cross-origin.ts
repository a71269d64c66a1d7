/** The headers that let the request's origin read (and time) a response; none without one. */
export function crossOriginHeaders(origin: string | undefined): Record<string, string> | undefined {
  if (origin === undefined || origin === '') return undefined
  return {
    'access-control-allow-origin': origin,
    'timing-allow-origin': origin,
    vary: 'Origin',
  }
}
