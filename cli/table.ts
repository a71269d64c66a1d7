/**
 * Formats rows as an aligned plain-text table: a header, a rule, one line per row, columns
 * separated by two spaces, trailing spaces trimmed, a newline at the end. Width counts code
 * points, so `→` is one. A row shorter than the headers leaves its last cells empty. Exported by
 * `fw/cli` for plugins' commands.
 *
 * @example
 * formatTable(['Method', 'Path'], [['GET|HEAD', '/']])
 * // Method    Path
 * // --------  ----
 * // GET|HEAD  /
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const width = (s: string): number => [...s].length
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))))
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c + ' '.repeat(Math.max(0, widths[i]! - width(c))))
      .join('  ')
      .trimEnd()
  return (
    [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n'
  )
}
