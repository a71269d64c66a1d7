import { deferEntity } from 'fw/plugins/database'

/** A person who signs in (`users`). Property names are the column names. */
export class User {
  id!: number
  /** Unique case-insensitively (a unique index on `lower(username)`). */
  username!: string
  email!: string
  /** `scrypt$N$r$p$<salt>$<hash>` (see `passwords.ts`); never the password. */
  password_hash!: string
  /** 1 a user, 50 an editor, 100 an administrator (≥ 90 reaches the admin-only pages). */
  usertype!: number
  /**
   * The TOTP secret sealed with AES-256-GCM under a key derived from the application key
   * (`v1.<iv>.<ciphertext>.<tag>`), or null for a user without a second factor.
   */
  totp_secret: string | null = null
  /** The last TOTP time step accepted for this user (replay protection). */
  totp_last_step: number | null = null
  created_at: Date = new Date()
}

export const UserSchema = deferEntity(User, ({ BigIntType, EntitySchema }) => {
  return new EntitySchema<User>({
    class: User,
    tableName: 'users',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      username: { type: 'string', length: 100 },
      email: { type: 'string', length: 255 },
      password_hash: { type: 'string', length: 255, hidden: true },
      usertype: { type: 'integer' },
      totp_secret: { type: 'text', nullable: true, hidden: true },
      totp_last_step: { type: new BigIntType('number'), nullable: true, hidden: true },
      created_at: { type: 'datetime', onCreate: () => new Date() },
    },
  })
})

/**
 * A kind of stored token: a bearer token (`/account/login` or `/api/oauth/token`), a browser's web
 * session, or an authorization-server refresh token.
 */
export type TokenKind = 'access' | 'web_session' | 'refresh'

/**
 * An issued token (`auth_tokens`): its sha256, never the token. For an access token `id` is the
 * JWT's `jti`; for a web session the cookie holds a random value whose sha256 is `token_hash`.
 */
export class AuthToken {
  id!: string
  user_id!: number
  kind!: TokenKind
  token_hash!: string
  /** Unix seconds, equal to the JWT's `exp`; null: never expires. */
  expires: number | null = null
  revoked: boolean = false
  created_at: Date = new Date()
}

export const AuthTokenSchema = deferEntity(AuthToken, ({ BigIntType, EntitySchema }) => {
  return new EntitySchema<AuthToken>({
    class: AuthToken,
    tableName: 'auth_tokens',
    properties: {
      id: { type: 'uuid', primary: true },
      user_id: { type: 'integer', index: true },
      kind: { type: 'string', length: 20 },
      token_hash: { type: 'string', length: 64, unique: true, hidden: true },
      expires: { type: new BigIntType('number'), nullable: true },
      revoked: { type: 'boolean', default: false },
      created_at: { type: 'datetime', onCreate: () => new Date() },
    },
  })
})

/** The first leg of a two-factor sign-in, waiting for its code (`auth_pending_logins`). */
export class PendingLogin {
  /** sha256 of the pending-login cookie's value. */
  id!: string
  user_id!: number
  /** Unix milliseconds. */
  expires_at!: number
}

export const PendingLoginSchema = deferEntity(PendingLogin, ({ BigIntType, EntitySchema }) => {
  return new EntitySchema<PendingLogin>({
    class: PendingLogin,
    tableName: 'auth_pending_logins',
    properties: {
      id: { type: 'string', length: 64, primary: true },
      user_id: { type: 'integer', index: true },
      expires_at: { type: new BigIntType('number') },
    },
  })
})

/** Failed sign-ins of one lower-cased, trimmed username (`auth_lockouts`). */
export class Lockout {
  username!: string
  failures!: number
  /** Unix milliseconds of the latest failure. */
  last_failure_at!: number
  /** Unix milliseconds; 0 when the count has not reached a lock. */
  locked_until!: number
}

export const LockoutSchema = deferEntity(Lockout, ({ BigIntType, EntitySchema }) => {
  return new EntitySchema<Lockout>({
    class: Lockout,
    tableName: 'auth_lockouts',
    properties: {
      username: { type: 'string', length: 100, primary: true },
      failures: { type: 'integer' },
      last_failure_at: { type: new BigIntType('number') },
      locked_until: { type: new BigIntType('number') },
    },
  })
})

/** One single-use backup code of a user (`auth_backup_codes`), stored as its sha256. */
export class BackupCode {
  id!: number
  user_id!: number
  code_hash!: string
  used_at: Date | null = null
}

export const BackupCodeSchema = deferEntity(BackupCode, ({ EntitySchema }) => {
  return new EntitySchema<BackupCode>({
    class: BackupCode,
    tableName: 'auth_backup_codes',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      user_id: { type: 'integer', index: true },
      code_hash: { type: 'string', length: 64, hidden: true },
      used_at: { type: 'datetime', nullable: true },
    },
  })
})

/** Every entity of the auth plugin. */
export const authEntities = [
  UserSchema,
  AuthTokenSchema,
  PendingLoginSchema,
  LockoutSchema,
  BackupCodeSchema,
] as const
