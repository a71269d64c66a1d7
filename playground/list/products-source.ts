import { defineListSource } from 'fw/plugins/list'
import { Product, PRODUCT_COLUMNS } from '../entities/product.js'

/**
 * The products list (playground/README.md "The products API"): every products column but none
 * other, the category's title through a join (as `categories.title` or `title`),
 * `id, name, sku, price` by default, `name` and `sku` searched by plain text.
 */
export const productList = defineListSource({
  entity: Product,
  fields: [...PRODUCT_COLUMNS, 'categories.title'],
  defaultFields: ['id', 'name', 'sku', 'price'],
  searchable: ['name', 'sku'],
  joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
})

/**
 * What the `/products` page shows to anyone, guests included: the columns of its table and no
 * other (not `notes`, not `active`), searched by name and sku. Its endpoint is not behind the API
 * key, so it must not list more than the page does.
 */
export const productCatalogue = defineListSource({
  entity: Product,
  fields: ['id', 'name', 'sku', 'price', 'stock', 'categories.title'],
  defaultFields: ['id', 'name', 'sku', 'price'],
  searchable: ['name', 'sku'],
  joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
})

/** A column of the `/products` page's table. */
export interface ProductColumn {
  /** The list field it shows (DataTables' `columns[i][data]`). */
  readonly data: string
  readonly title: string
  readonly numeric?: boolean
}

/** The columns of the `/products` page. */
export const productColumns: readonly ProductColumn[] = [
  { data: 'id', title: '#', numeric: true },
  { data: 'name', title: 'Name' },
  { data: 'sku', title: 'SKU' },
  { data: 'title', title: 'Category' },
  { data: 'price', title: 'Price', numeric: true },
  { data: 'stock', title: 'Stock', numeric: true },
]
