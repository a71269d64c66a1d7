import { Migration } from 'fw/plugins/database'

/**
 * The playground's tables: applications (with their CORS settings), categories, products. `users`
 * is the auth plugin's (its migration runs after this one).
 */
export class CreatePlaygroundTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "applications" (
      "id" serial primary key,
      "name" varchar(100) not null,
      "api_key_hash" varchar(64) not null,
      "secret_hash" varchar(255) not null,
      "status" text not null default 'active',
      "cors_enabled" boolean not null default false,
      "origin" text null,
      "allowed_methods" text null,
      "allowed_headers" text null
    )`)
    this.addSql(
      'alter table "applications" add constraint "applications_name_unique" unique ("name")',
    )
    this.addSql(
      'alter table "applications" add constraint "applications_api_key_hash_unique" unique ("api_key_hash")',
    )

    this.addSql(`create table "categories" (
      "id" serial primary key,
      "title" varchar(100) not null
    )`)

    this.addSql(`create table "products" (
      "id" serial primary key,
      "name" varchar(200) not null,
      "sku" varchar(64) not null,
      "price" numeric(10,2) not null,
      "stock" int not null,
      "active" boolean not null default true,
      "tags" jsonb not null default '[]',
      "notes" text null,
      "category_id" int null,
      "created_at" timestamptz not null default now()
    )`)
    this.addSql('alter table "products" add constraint "products_sku_unique" unique ("sku")')
    this.addSql(
      'alter table "products" add constraint "products_category_id_foreign" foreign key ("category_id") references "categories" ("id") on update cascade on delete set null',
    )
    this.addSql('create index "products_category_id_index" on "products" ("category_id")')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "products"')
    this.addSql('drop table if exists "categories"')
    this.addSql('drop table if exists "applications"')
  }
}
