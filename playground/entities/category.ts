import { createRequire } from 'node:module'
import type * as MikroCore from '@mikro-orm/core'
import { deferEntity } from 'fw/plugins/database'

// Required, not imported (importing the CommonJS package makes Node lex its ~130 files for named
// exports), and only when the database opens: `deferEntity` builds the schema then, so commands
// that never open the database (`fw route:list`) do not load MikroORM at all.
const mikroCore = (): typeof MikroCore =>
  createRequire(import.meta.url)('@mikro-orm/core') as typeof MikroCore

/** A product category (`categories`). */
export class Category {
  id!: number
  title!: string
}

export const CategorySchema = deferEntity(Category, () => {
  const { EntitySchema } = mikroCore()
  return new EntitySchema<Category>({
    class: Category,
    tableName: 'categories',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      title: { type: 'string', length: 100 },
    },
  })
})
