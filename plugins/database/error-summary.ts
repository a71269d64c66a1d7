import { unavailableReason } from './availability.js'

// What the database plugin writes about a failure, in its log lines and `availability().error`.
// Never an error's message: driver messages carry the statement with its values (MikroORM inlines
// them into the SQL, knex puts the SQL before the database's words, PGlite keeps `query` and
// `params` on the error), and the database's own words quote values too (`invalid input syntax for
// type integer: "abc"`). Names, codes and addresses cannot hold a value, and say what went wrong.

const NAME = /^[A-Za-z_$][\w$]{0,63}$/
const CODE = /^[A-Za-z0-9_]{1,48}$/
/** An IP address (what node's socket errors carry), not a host name someone typed. */
const ADDRESS = /^[0-9A-Fa-f.:]{2,45}$/
/** Errors of a chain written out at most. */
const MAX_LINKS = 4

function linkOf(error: object): string {
  const e = error as { name?: unknown; code?: unknown; address?: unknown; port?: unknown }
  let text = typeof e.name === 'string' && NAME.test(e.name) ? e.name : 'Error'
  if (typeof e.code === 'string' && CODE.test(e.code)) text += ` ${e.code}`
  if (typeof e.address === 'string' && ADDRESS.test(e.address)) {
    text += ` ${e.address}`
    if (typeof e.port === 'number' && Number.isInteger(e.port)) text += `:${e.port}`
  }
  return text
}

/**
 * `error` as a log line may carry it: the name, code and address of each error along its `cause`
 * chain (the first of an AggregateError's), and what made it an outage when it is one.
 *
 * @example
 * summaryOf(refused) // 'AggregateError ECONNREFUSED < Error ECONNREFUSED 127.0.0.1:5432'
 * summaryOf(lost)    // 'DriverException (Connection terminated)'
 */
export function summaryOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error
  const links: string[] = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (
    typeof current === 'object' &&
    current !== null &&
    !seen.has(current) &&
    links.length < MAX_LINKS
  ) {
    seen.add(current)
    const link = linkOf(current)
    if (links[links.length - 1] !== link) links.push(link)
    const { cause, errors } = current as { cause?: unknown; errors?: unknown }
    current = cause ?? (Array.isArray(errors) ? (errors[0] as unknown) : undefined)
  }
  const text = links.join(' < ')
  const reason = unavailableReason(error)
  return reason === undefined || text.includes(reason) ? text : `${text} (${reason})`
}

/** A SQLSTATE: five digits or capitals (`23505`, `22P02`). */
const SQLSTATE = /^[0-9A-Z]{5}$/
/** A SQL identifier as the database names one (`products_sku_key`), never a value. */
const IDENTIFIER = /^[A-Za-z_][\w$]{0,62}$/
const NAMED = ['table', 'column', 'constraint'] as const

/**
 * What a database error is in words fit for any report, or undefined when `error` did not come
 * from the database: {@link summaryOf} plus the table, column and constraint the database named
 * (`UniqueConstraintViolationException 23505 (table products, constraint products_sku_key)`).
 * The database's own message and detail (`Key (sku)=(ABC-1) already exists`) are left out.
 */
export function databaseErrorMessage(error: unknown): string | undefined {
  const named = new Map<string, string>()
  let fromDatabase = unavailableReason(error) !== undefined
  const seen = new Set<unknown>()
  let current = error
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current)
    const e = current as Record<string, unknown>
    if (e.name === 'StatementError' || (typeof e.code === 'string' && SQLSTATE.test(e.code)))
      fromDatabase = true
    for (const key of NAMED) {
      const value = e[key]
      if (!named.has(key) && typeof value === 'string' && IDENTIFIER.test(value))
        named.set(key, value)
    }
    current = e.cause
  }
  if (!fromDatabase) return undefined
  const where = [...named].map(([key, value]) => `${key} ${value}`).join(', ')
  return where === '' ? summaryOf(error) : `${summaryOf(error)} (${where})`
}

/** What {@link uniqueViolation} tells of a refused duplicate. */
export interface UniqueViolation {
  /** The unique constraint or index the database named (`users_username_lower_unique`), if any. */
  readonly constraint: string | undefined
}

/**
 * Whether `error` is the database refusing a duplicate of a unique key (SQLSTATE 23505), from any
 * path that writes: a `StatementError` (`sql`, `query`, `runStatement`), a flush or
 * `nativeInsert` of the ORM (MikroORM's `UniqueConstraintViolationException`), or the driver's
 * own error, also as the `cause` of another. The answer names the constraint, so that a handler
 * can tell which field was taken; undefined for any other error.
 *
 * @example
 * try {
 *   await em.flush()
 * } catch (error) {
 *   if (uniqueViolation(error)?.constraint === 'users_email_lower_unique')
 *     throw new HttpError(422, 'email has already been taken')
 *   throw error
 * }
 */
export function uniqueViolation(error: unknown): UniqueViolation | undefined {
  let unique = false
  let constraint: string | undefined
  const seen = new Set<unknown>()
  for (let e = error; typeof e === 'object' && e !== null && !seen.has(e);) {
    seen.add(e)
    const link = e as Record<string, unknown>
    const failure = link.failure as { sqlState?: unknown } | undefined
    if (link.code === '23505' || link.sqlState === '23505' || failure?.sqlState === '23505')
      unique = true
    if (constraint === undefined && typeof link.constraint === 'string')
      constraint = IDENTIFIER.test(link.constraint) ? link.constraint : undefined
    e = link.cause
  }
  return unique ? { constraint } : undefined
}
