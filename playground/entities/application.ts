import { deferEntity } from 'fw/plugins/database'

/**
 * A client application of the API (`applications`): its key and secret stored hashed, a status,
 * and its CORS settings (comma-separated `origin`, `allowed_methods`, `allowed_headers`, and
 * `cors_enabled`; plugins/api/README.md "CORS").
 */
export class Application {
  id!: number
  name!: string
  /** Lowercase hex SHA-256 of the API key: a key is random and long, so a fast hash is enough to look it up. */
  api_key_hash!: string
  /** The secret (OAuth `client_secret`), hashed with scrypt like a password. */
  secret_hash!: string
  status: string = 'active'
  cors_enabled: boolean = false
  origin: string | null = null
  allowed_methods: string | null = null
  allowed_headers: string | null = null
}

export const ApplicationSchema = deferEntity(Application, ({ EntitySchema }) => {
  return new EntitySchema<Application>({
    class: Application,
    tableName: 'applications',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      name: { type: 'string', length: 100, unique: true },
      api_key_hash: { type: 'string', length: 64, unique: true, hidden: true },
      secret_hash: { type: 'string', length: 255, hidden: true },
      status: { type: 'text', default: 'active' },
      cors_enabled: { type: 'boolean', default: false },
      origin: { type: 'text', nullable: true },
      allowed_methods: { type: 'text', nullable: true },
      allowed_headers: { type: 'text', nullable: true },
    },
  })
})
