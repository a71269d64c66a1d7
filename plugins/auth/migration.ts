import { Migration } from 'fw/plugins/database'

/**
 * The auth plugin's tables: users (username unique case-insensitively), issued tokens, pending
 * two-factor logins, lockouts and backup codes. Everything but `users` references `users` and goes
 * with it (`on delete cascade`).
 */
export class CreateAuthTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "users" (
      "id" serial primary key,
      "username" varchar(100) not null,
      "email" varchar(255) not null,
      "password_hash" varchar(255) not null,
      "usertype" int not null default 1,
      "totp_secret" text null,
      "totp_last_step" bigint null,
      "created_at" timestamptz not null default now()
    )`)
    this.addSql('create unique index "users_username_lower_unique" on "users" (lower("username"))')

    this.addSql(`create table "auth_tokens" (
      "id" uuid primary key,
      "user_id" int not null references "users" ("id") on delete cascade,
      "kind" varchar(20) not null,
      "token_hash" varchar(64) not null,
      "expires" bigint null,
      "revoked" boolean not null default false,
      "created_at" timestamptz not null default now()
    )`)
    this.addSql(
      'alter table "auth_tokens" add constraint "auth_tokens_token_hash_unique" unique ("token_hash")',
    )
    this.addSql('create index "auth_tokens_user_id_index" on "auth_tokens" ("user_id")')

    this.addSql(`create table "auth_pending_logins" (
      "id" varchar(64) primary key,
      "user_id" int not null references "users" ("id") on delete cascade,
      "expires_at" bigint not null
    )`)
    this.addSql(
      'create index "auth_pending_logins_user_id_index" on "auth_pending_logins" ("user_id")',
    )

    this.addSql(`create table "auth_lockouts" (
      "username" varchar(100) primary key,
      "failures" int not null,
      "last_failure_at" bigint not null,
      "locked_until" bigint not null
    )`)

    this.addSql(`create table "auth_backup_codes" (
      "id" serial primary key,
      "user_id" int not null references "users" ("id") on delete cascade,
      "code_hash" varchar(64) not null,
      "used_at" timestamptz null
    )`)
    this.addSql(
      'alter table "auth_backup_codes" add constraint "auth_backup_codes_user_code_unique" unique ("user_id", "code_hash")',
    )
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "auth_backup_codes"')
    this.addSql('drop table if exists "auth_lockouts"')
    this.addSql('drop table if exists "auth_pending_logins"')
    this.addSql('drop table if exists "auth_tokens"')
    this.addSql('drop table if exists "users"')
  }
}

/** The auth plugin's migrations: before those of the app and of the plugins that depend on auth. */
export const authMigrations = [
  { name: 'Migration20261121130000_create_auth_tables', class: CreateAuthTables },
] as const
