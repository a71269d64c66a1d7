/** `page` and `per_page` of a list request, read as the list plugin reads them (its README). */
export interface Paging {
  readonly page: number
  readonly perPage: number
  readonly offset: number
}

/** The pagination object of the list envelope (plugins/list/README.md "Responses"). */
export interface Pagination {
  currentpage: number
  itemsperpage: number
  totalitems: number
  totalpages: number
  hasnext: boolean
  hasprevious: boolean
}

const DEFAULT_PER_PAGE = 20
const MAX_PER_PAGE = 500
/** Far past any real table; keeps `offset` an exact integer however large a page is asked for. */
const MAX_PAGE = 1_000_000

function integer(value: unknown): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value
  return typeof raw === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(raw) ? Number(raw) : undefined
}

/**
 * Reads `page` (≥ 1, default 1) and `per_page` (clamped into 1…500, default 20) from a query; a
 * value that is not an integer takes the default.
 */
export function readPaging(query: Record<string, unknown>): Paging {
  const page = Math.min(MAX_PAGE, Math.max(1, integer(query.page) ?? 1))
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, integer(query.per_page) ?? DEFAULT_PER_PAGE))
  return { page, perPage, offset: (page - 1) * perPage }
}

/** The number of pages: 1 when nothing matches. */
export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage))
}

/** The pagination object for a page of `total` items. */
export function paginate(paging: Paging, total: number): Pagination {
  const totalpages = pageCount(total, paging.perPage)
  return {
    currentpage: paging.page,
    itemsperpage: paging.perPage,
    totalitems: total,
    totalpages,
    hasnext: paging.page < totalpages,
    hasprevious: paging.page > 1,
  }
}
