import { ApplicationSchema } from './application.js'
import { CategorySchema } from './category.js'
import { ProductSchema } from './product.js'

/**
 * Every entity of the playground, for the database plugin's `entities` option. `users` belongs to
 * the auth plugin (`fw/plugins/auth`), which adds its own tables.
 */
export const entities = [ApplicationSchema, CategorySchema, ProductSchema] as const
