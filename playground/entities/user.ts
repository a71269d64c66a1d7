import { EntitySchema } from '@mikro-orm/core'

/** A person who signs in (`users`). Property names are the column names. */
export class User {
  id!: number
  username!: string
  email!: string
  /** `scrypt$N$r$p$<salt>$<hash>` (see `passwords.ts`); never the password. */
  password_hash!: string
  /** 1 a user, 50 an editor, 100 an administrator (≥ 90 reaches the admin-only pages). */
  usertype!: number
  /** Base32 TOTP secret of a user with a second factor, else null. */
  totp_secret: string | null = null
  created_at: Date = new Date()
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    username: { type: 'string', length: 100, unique: true },
    email: { type: 'string', length: 255 },
    password_hash: { type: 'string', length: 255, hidden: true },
    usertype: { type: 'integer' },
    totp_secret: { type: 'string', length: 64, nullable: true, hidden: true },
    created_at: { type: 'datetime', onCreate: () => new Date() },
  },
})
