import { createRequire } from 'node:module'
import type * as MikroCore from '@mikro-orm/core'

// Required, not imported: importing the CommonJS package makes Node lex its ~130 files for named
// exports (≈80 ms of every `fw` command that boots the app); the same module either way.
const { EntitySchema } = createRequire(import.meta.url)('@mikro-orm/core') as typeof MikroCore

/** A product category (`categories`). */
export class Category {
  id!: number
  title!: string
}

export const CategorySchema = new EntitySchema<Category>({
  class: Category,
  tableName: 'categories',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    title: { type: 'string', length: 100 },
  },
})
