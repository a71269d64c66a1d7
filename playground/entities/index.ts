import { ApplicationSchema } from './application.js'
import { CategorySchema } from './category.js'
import { ProductSchema } from './product.js'
import { UserSchema } from './user.js'

/** Every entity of the playground, for the database plugin's `entities` option. */
export const entities = [UserSchema, ApplicationSchema, CategorySchema, ProductSchema] as const
