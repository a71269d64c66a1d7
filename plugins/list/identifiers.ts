// The identifier grammar of field names (README.md "Parameters"): a lowercase identifier,
// optionally a dot and a second one (letters, digits, underscore; not starting with a digit).

/** One identifier: what a table, an alias or a column of a list source may be called. */
const NAME = /^[a-z_][a-z0-9_]*$/
/** A field as a caller may name it: `name` or `categories.title`. */
const FIELD = /^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?$/
/** Longer names are dropped before any lookup (PostgreSQL itself truncates at 63 bytes). */
const MAX_FIELD_LENGTH = 127

/** True when `value` is a field name the grammar accepts (`name`, `categories.title`). */
export function isFieldName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_FIELD_LENGTH && FIELD.test(value)
}

/** True when `value` is a single identifier (`products`, `category_id`). */
export function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_FIELD_LENGTH && NAME.test(value)
}

/**
 * Quotes an identifier for SQL. Only ever called on names that passed {@link isIdentifier}, so
 * there is nothing to escape; the quotes keep reserved words (`order`, `user`) usable.
 */
export function quote(identifier: string): string {
  return `"${identifier}"`
}
