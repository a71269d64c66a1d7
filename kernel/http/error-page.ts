/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  )
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Request too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Service unavailable',
}

/** The title the error page uses for a status. */
export function statusTitle(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request failed')
}

/**
 * The kernel's HTML error page: a status, a title, a sentence, and (development only) details such
 * as a stack trace. Every piece of text is escaped. It has a `</body>` so the toolbar can be
 * injected into it.
 */
export function errorPage(status: number, message: string, details?: string): string {
  const title = statusTitle(status)
  const extra = details === undefined ? '' : `\n<pre class="details">${escapeHtml(details)}</pre>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${status} ${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f6f7f9;color:#1d2330}
main{max-width:42rem;padding:2rem}
h1{font-size:1.5rem;margin:0 0 .5rem}
.status{color:#8a93a6;font-weight:600}
pre.details{white-space:pre-wrap;background:#fff;border:1px solid #dde1e8;padding:1rem;overflow:auto;font-size:.8rem}
</style>
</head>
<body>
<main>
<p class="status">${status}</p>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>${extra}
</main>
</body>
</html>
`
}
