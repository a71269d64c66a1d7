/** The first SQL keyword, upper case: `SELECT`, `INSERT`, `WITH`… (`db.operation.name`). */
export function operationOf(sql: string): string {
  return /^\s*(?:\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'
}
