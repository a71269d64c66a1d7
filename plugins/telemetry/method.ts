// The request method as the HTTP semantic conventions record it (`http.request.method`): a known
// method as it is, any other as `_OTHER`, so that clients cannot mint span names or metric series.

/** The conventions' default known methods: RFC 9110's, PATCH (RFC 5789) and QUERY. */
export const KNOWN_METHODS: readonly string[] = [
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]

/** `method` when it is known (case-sensitive), else `_OTHER`. */
export function methodAttribute(method: string, known: ReadonlySet<string>): string {
  return known.has(method) ? method : '_OTHER'
}
