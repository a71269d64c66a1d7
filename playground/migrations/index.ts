import type { MigrationObject } from 'fw/plugins/database'
import { CreatePlaygroundTables } from './20261121120000-create-playground-tables.js'
import { CreateProductImports } from './20261129120000-create-product-imports.js'

/**
 * The playground's migrations, oldest first. A name is recorded in `fw_migrations` once run:
 * never rename or reorder one; add a new file and append it here.
 */
export const migrations: readonly MigrationObject[] = [
  { name: 'Migration20261121120000_create_playground_tables', class: CreatePlaygroundTables },
  { name: 'Migration20261129120000_create_product_imports', class: CreateProductImports },
]
