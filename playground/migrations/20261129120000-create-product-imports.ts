import { Migration } from 'fw/plugins/database'

/**
 * The admin area's product imports: one row per uploaded CSV (its job, its counts, how far it got)
 * and one row per problem found in a line of it. `records_done` is what a retried job resumes
 * from: it moves in the same transaction as each batch's products and failures, so a batch is
 * either wholly kept and counted or not at all (test/playground/product-import.test.ts).
 */
export class CreateProductImports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "product_imports" (
      "id" serial primary key,
      "file_name" varchar(255) not null,
      "path" varchar(255) not null,
      "job_id" uuid null,
      "status" varchar(16) not null default 'queued',
      "total" int null,
      "records_done" int not null default 0,
      "inserted" int not null default 0,
      "failed" int not null default 0,
      "error" text null,
      "created_by" varchar(255) null,
      "created_at" timestamptz not null default now(),
      "finished_at" timestamptz null
    )`)
    this.addSql(`create table "product_import_failures" (
      "id" serial primary key,
      "import_id" int not null references "product_imports" ("id") on delete cascade,
      "line" int not null,
      "column" varchar(64) not null,
      "message" text not null
    )`)
    this.addSql(
      'create index "product_import_failures_import_id_line_index" on "product_import_failures" ("import_id", "line")',
    )
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "product_import_failures"')
    this.addSql('drop table if exists "product_imports"')
  }
}
