import { escapeHtml } from 'fw'

const STYLE = `
  :root { color-scheme: light dark; --accent: #4f46e5; --muted: #6b7280; --line: #e5e7eb; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
  header { padding: 1.25rem 2rem; background: var(--accent); color: #fff; }
  header h1 { margin: 0; font-size: 1.25rem; letter-spacing: .02em; }
  main { max-width: 52rem; margin: 0 auto; padding: 1.5rem 2rem 3rem; }
  h2 { margin-top: 2rem; font-size: 1.05rem; }
  table { width: 100%; border-collapse: collapse; }
  td { padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  td:first-child { white-space: nowrap; width: 1%; }
  code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; }
  a { color: var(--accent); }
  .muted { color: var(--muted); }
`

/** The playground's page shell: a themed header and a main column around `body` (trusted HTML). */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · fw playground</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>fw playground</h1></header>
<main>
${body}
</main>
</body>
</html>
`
}
