import { deferEntity } from 'fw/plugins/database'

/** A product category (`categories`). */
export class Category {
  id!: number
  title!: string
}

export const CategorySchema = deferEntity(Category, ({ EntitySchema }) => {
  return new EntitySchema<Category>({
    class: Category,
    tableName: 'categories',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      title: { type: 'string', length: 100 },
    },
  })
})
