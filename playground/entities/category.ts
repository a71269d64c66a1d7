import { EntitySchema } from '@mikro-orm/core'

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
