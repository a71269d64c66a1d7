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
}

/** The name a field has in a row: without its table prefix (`categories.title` → `title`). */
function rowKey(field: string): string {
  return field.slice(field.lastIndexOf('.') + 1)
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
 * row), typed from `record` where it names them. Only the primary key is always present.
 */
export function listItemSchema(source: ListSource, record?: JsonSchema): JsonSchema {
  const columns = (record as { properties?: Record<string, JsonSchema> } | undefined)?.properties
  const properties: Record<string, JsonSchema> = {}
  for (const field of source.definition.fields) {
    const key = rowKey(field)
    properties[key] = columns?.[key] ?? {}
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
            data: { type: 'array', items: listItemSchema(source, options.record) },
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
        search: {
          type: 'object',
          description: '`search[value]`: plain text a searchable field contains.',
          properties: { value: { type: 'string' } },
        },
        order: {
          type: 'object',
          description: '`order[i][column]` (a column index) and `order[i][dir]` (`asc`, `desc`).',
        },
        columns: {
          type: 'object',
          description:
            '`columns[i][data]`: the field each column shows; `orderable=false` skips it.',
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
            data: { type: 'array', items: listItemSchema(source, options.record) },
          },
        },
      },
    },
  }
}
