import { deferEntity } from 'fw/plugins/database'

/**
 * A product (`products`). Property names are the column names, so `toData()` answers exactly the
 * columns (playground/README.md "The demo data"). `category_id` is a plain scalar rather than a
 * relation: the list engine joins `categories` on it itself, and a scalar keeps the export a plain
 * number.
 */
export class Product {
  id!: number
  name!: string
  sku!: string
  price!: number
  stock!: number
  active: boolean = true
  tags: string[] = []
  notes: string | null = null
  category_id: number | null = null
  created_at: Date = new Date()
}

/** The columns a client may write (the products API's bodies); `id` and `created_at` are the database's. */
export const PRODUCT_WRITABLE = [
  'name',
  'sku',
  'price',
  'stock',
  'active',
  'tags',
  'notes',
  'category_id',
] as const satisfies ReadonlyArray<keyof Product>

/** Every column of a product, in the order `toData()` answers them. */
export const PRODUCT_COLUMNS = ['id', ...PRODUCT_WRITABLE, 'created_at'] as const

export const ProductSchema = deferEntity(Product, ({ DecimalType, EntitySchema }) => {
  return new EntitySchema<Product>({
    class: Product,
    tableName: 'products',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      name: { type: 'string', length: 200 },
      sku: { type: 'string', length: 64, unique: true },
      // numeric(10,2) read back as a JS number (the pg driver would give a string).
      price: { type: new DecimalType('number'), precision: 10, scale: 2 },
      stock: { type: 'integer' },
      active: { type: 'boolean', default: true },
      tags: { type: 'json' },
      notes: { type: 'text', nullable: true },
      category_id: { type: 'integer', nullable: true, index: true },
      created_at: { type: 'datetime', onCreate: () => new Date() },
    },
  })
})
