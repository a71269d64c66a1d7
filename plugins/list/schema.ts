// What a list endpoint accepts and answers, as JSON Schemas for a route's `.schema()`: the API
// document then describes its query parameters and types its rows, and a client generated from
// the document types `query: { page?: number … }` and `data[0].name`.
import type { JsonSchema, RouteSchema } from 'fw'
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './read-params.js'
import type { ListSource } from './source.js'

/** What a list route's schema is built from besides its source. */
export interface ListSchemaOptions {
  /**
   * A JSON Schema of one row with every column (`{type: 'object', properties: {…}}`): each listed
   * field takes its property's schema. A field it does not name (a joined column) is left untyped.
   */
  readonly record?: JsonSchema
  /** The 200 response's description (default `One page of <source name>.`). */
  readonly description?: string
  /**
   * Schemas of the joined tables' fields, by their name in a row (`{ title: { type: 'string' } }`):
   * `record` describes the listed table only. A joined field is `nullable` (a LEFT JOIN may find
   * no row).
   */
  readonly joined?: Readonly<Record<string, JsonSchema>>
}

/** The name a field has in a row: without its table prefix (`categories.title` → `title`). */
function rowKey(field: string): string {
  return field.slice(field.lastIndexOf('.') + 1)
}

/** True when `field` names a column of a joined table (its prefix is a join's alias). */
function isJoined(field: string, source: ListSource): boolean {
  const dot = field.indexOf('.')
  if (dot < 0) return false
  const prefix = field.slice(0, dot)
  return (source.definition.joins ?? []).some((j) => (j.as ?? j.table) === prefix)
}

/**
 * The body of a list that failed (README.md "Responses", "Refused input"): the error envelope
 * (`Database query failed`, 400 for a value the database refused, 500 otherwise), or
 * `{error, message}` for a refused parameter (400 `invalid_input`, 422 `search_too_long` with
 * `max_length`). `extra` adds the DataTables keys.
 */
function listErrorSchema(extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'string',
        description:
          "`Database query failed` (with the database's message in development), `invalid_input` or `search_too_long`.",
      },
      message: { type: 'string' },
      max_length: { type: 'integer', description: 'With `search_too_long`: the limit.' },
      data: { type: 'array', maxItems: 0, items: { type: 'object' } },
      pagination: { type: 'object', nullable: true },
      fields: { type: 'array', items: { type: 'string' } },
      debug: {
        type: 'object',
        description: 'Development or a debug grant: the SQL fragments run, never a value.',
        properties: {
          filter: { type: 'string' },
          order: { type: 'string' },
          selectFields: { type: 'string' },
        },
      },
      ...extra,
    },
  }
}

/** The failures every list route answers besides its 200 (the API middleware adds 401/403). */
function errorResponses(extra?: Record<string, JsonSchema>): NonNullable<RouteSchema['responses']> {
  const schema = listErrorSchema(extra)
  return {
    400: {
      description:
        'A filter value the database refused (SQLSTATE class 22), or a NUL character in a parameter (`invalid_input`).',
      schema,
    },
    422: {
      description: 'A search term past `list.max_search_length` (`search_too_long`).',
      schema,
    },
    500: { description: 'The list statement failed for another reason.', schema },
  }
}

/**
 * The query parameters of a list endpoint (`fields`, `order`, `filter`, `search`, `page`,
 * `per_page`, `after`) as an object schema, for `.schema({ query })`; the whitelist and the
 * defaults in the descriptions.
 */
export function listQuerySchema(source: ListSource): JsonSchema {
  const d = source.definition
  const fields = d.fields.map((f) => `\`${f}\``).join(', ')
  const searchable = (d.searchable ?? []).map((f) => `\`${f}\``).join(', ')
  return {
    type: 'object',
    properties: {
      fields: {
        type: 'string',
        description: `Fields to answer, comma-separated or a JSON array, among ${fields}. Default: ${d.defaultFields.join(', ')}.`,
        example: d.defaultFields.join(','),
      },
      order: {
        type: 'string',
        description: `Fields to sort by, comma-separated; a leading \`-\` sorts descending. Default: the primary key, descending.`,
      },
      filter: {
        type: 'string',
        description:
          'Conditions, a JSON array of `{field, op, value}` and `{or: […]}` (or the same in brackets: `filter[0][field]=stock&filter[0][op]=>&filter[0][value]=5`), ANDed.',
      },
      ...(searchable === ''
        ? {}
        : {
            search: {
              type: 'string',
              description: `Plain text any of ${searchable} contains (case-insensitive); or a JSON object of field → term.`,
            },
          }),
      page: { type: 'integer', minimum: 1, default: 1 },
      per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
      after: {
        type: 'string',
        description:
          'Keyset paging: empty for the first page, then the previous answer’s `pagination.nextcursor`.',
      },
    },
  }
}

/**
 * One row of a list: an object whose properties are the source's fields (by their names in a
 * row), typed from `record` where it names them, a joined field from `joined` (and nullable). Only
 * the primary key is always present.
 */
export function listItemSchema(
  source: ListSource,
  record?: JsonSchema,
  joined?: Readonly<Record<string, JsonSchema>>,
): JsonSchema {
  const columns = (record as { properties?: Record<string, JsonSchema> } | undefined)?.properties
  const properties: Record<string, JsonSchema> = {}
  for (const field of source.definition.fields) {
    const key = rowKey(field)
    if (!isJoined(field, source)) {
      properties[key] = columns?.[key] ?? {}
      continue
    }
    const schema = joined?.[key]
    properties[key] = schema === undefined ? {} : { ...schema, nullable: true }
  }
  return {
    type: 'object',
    required: [rowKey(source.definition.primaryKey ?? 'id')],
    properties,
  }
}

/**
 * The `.schema()` of a route answered by `listReply`: its query parameters, and its 200 (`data`
 * rows typed by {@link listItemSchema}, `pagination`, `fields`).
 *
 * @example
 * router.get('products', (ctx) => listReply(ctx, products))
 *   .schema(listRouteSchema(products, { record: productSchema }))
 */
export function listRouteSchema(source: ListSource, options: ListSchemaOptions = {}): RouteSchema {
  const name = source.definition.name ?? source.definition.table ?? 'rows'
  return {
    query: listQuerySchema(source),
    responses: {
      200: {
        description: options.description ?? `One page of ${name}.`,
        schema: {
          type: 'object',
          required: ['data', 'pagination', 'fields'],
          properties: {
            data: {
              type: 'array',
              items: listItemSchema(source, options.record, options.joined),
            },
            pagination: {
              type: 'object',
              properties: {
                currentpage: { type: 'integer' },
                itemsperpage: { type: 'integer' },
                totalitems: { type: 'integer' },
                totalpages: { type: 'integer' },
                hasnext: { type: 'boolean' },
                hasprevious: { type: 'boolean' },
                nextcursor: { type: 'string', nullable: true },
              },
            },
            fields: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      ...errorResponses(),
    },
  }
}

/**
 * The `.schema()` of a route answered by `datatableReply`: the DataTables server-side parameters,
 * and its 200 (`draw`, `recordsTotal`, `recordsFiltered`, `data` rows typed by
 * {@link listItemSchema}).
 */
export function datatableRouteSchema(
  source: ListSource,
  options: ListSchemaOptions = {},
): RouteSchema {
  const name = source.definition.name ?? source.definition.table ?? 'rows'
  return {
    query: {
      type: 'object',
      properties: {
        draw: { type: 'integer', description: 'Echoed back as `draw`.' },
        start: { type: 'integer', minimum: 0, description: 'The first row, from 0.' },
        length: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, description: 'Rows.' },
        search: SEARCH,
        order: {
          type: 'array',
          description:
            '`order[i][column]` (an index into `columns`) and `order[i][dir]` (`asc`, `desc`).',
          items: {
            type: 'object',
            required: ['column'],
            properties: {
              column: { type: 'integer', minimum: 0 },
              dir: { type: 'string', enum: ['asc', 'desc'] },
            },
          },
        },
        columns: {
          type: 'array',
          description:
            "`columns[i][data]`: the field each column shows; `orderable=false` leaves it out of the order, `searchable=false` out of the searches; `columns[i][search][value]`: a term that column's field contains.",
          items: {
            type: 'object',
            required: ['data'],
            properties: {
              data: { type: 'string' },
              name: { type: 'string' },
              orderable: { type: 'boolean' },
              searchable: { type: 'boolean' },
              search: SEARCH,
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: options.description ?? `One DataTables page of ${name}.`,
        schema: {
          type: 'object',
          required: ['draw', 'recordsTotal', 'recordsFiltered', 'data'],
          properties: {
            draw: { type: 'integer' },
            recordsTotal: { type: 'integer' },
            recordsFiltered: { type: 'integer' },
            data: {
              type: 'array',
              items: listItemSchema(source, options.record, options.joined),
            },
          },
        },
      },
      ...errorResponses({
        draw: { type: 'integer' },
        recordsTotal: { type: 'integer' },
        recordsFiltered: { type: 'integer' },
      }),
    },
  }
}

/** DataTables' `search` (global, and each column's): the term, and a `regex` flag fw ignores. */
const SEARCH: JsonSchema = {
  type: 'object',
  description: '`search[value]`: plain text a searchable field contains (literally).',
  properties: { value: { type: 'string' }, regex: { type: 'boolean' } },
}
