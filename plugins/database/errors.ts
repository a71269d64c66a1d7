import { definePluginErrors, type CodesOf } from 'fw'

/** The database plugin's error codes. */
export const databaseErrors = definePluginErrors('database', {
  FW_ERR_DATABASE_URL: {
    when: '`DATABASE_URL` (or the `url` option) is not `postgresql://…`, `pglite://memory` or `pglite://<dir>`, or names no database.',
    fix: 'Fix the URL; the message shows it with any password masked.',
    message: (a: { url: string } | { noDatabase: true }) =>
      'url' in a
        ? `DATABASE_URL ${JSON.stringify(a.url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@'))} is not a database URL. Use postgresql://user@host:5432/db, pglite://memory or pglite://<dir>.`
        : 'DATABASE_URL names no database: add one after the host, e.g. postgresql://user@127.0.0.1:5432/app.',
  },
  FW_ERR_DATABASE_UNAVAILABLE: {
    when: 'A request reached for the database while it could not be reached (the app started without it, or a statement was refused, lost or timed out). Answered 503 `{"error":"unavailable"}` with `Retry-After`.',
    fix: 'Nothing in the app: the database plugin retries; see its README, "When the database is away".',
    status: 503,
    error: 'unavailable',
    message: 'The database could not be reached; it is being retried.',
  },
  FW_ERR_DATABASE_INVALID_INPUT: {
    when: 'A value bound to an SQL statement (a string, or a string inside an array or object) holds a NUL character (U+0000), which no PostgreSQL text can hold; found before the statement is sent, on PostgreSQL and PGlite alike. Also a statement the database refused for a value\'s characters (SQLSTATE 22021, 22P05). Answered 400 `{"error":"invalid_input"}`; not an outage: no 503, no retry.',
    fix: 'Nothing on the server: the client sent text that cannot be stored. Validate the field first for an answer of your own.',
    status: 400,
    error: 'invalid_input',
    message: 'The request holds a character the database cannot store (NUL, U+0000).',
  },
  FW_ERR_DATABASE_NOT_READY: {
    when: 'The database was used outside a request (a boot tap, a script, a command) before `ready()` resolved: it opens on first need.',
    fix: "`await kernel.plugin('database').ready()` first.",
    message:
      "The database opens on first need: await kernel.plugin('database').ready() before using it outside a request (in a boot tap, a script, a command).",
  },
  FW_ERR_DATABASE_MIGRATION_INVALID: {
    when: "`defineMigration()` got a name that is not letters, digits, `_`, `.` or `-`, or `up`/`down` that is neither a list of SQL statements nor a function; or, when the database opens, a `{ name, class }` migration's class does not extend `Migration` from 'fw/plugins/database' (one written for MikroORM's migrator still importing its `Migration`).",
    fix: "Name it with a timestamp first (`20260101000000_create_visits`); give `up: ['create table …']` or `up: (sql) => { sql('…') }`; import `Migration` from 'fw/plugins/database' in a class migration.",
    message: ({ name, problem }: { name: string; problem: string }) =>
      `Migration ${name} cannot be defined: ${problem}.`,
  },
  FW_ERR_DATABASE_SETUP_CLOSED: {
    when: '`addEntities()`, `addMigrations()` or `addSeed()` was called after the database started opening.',
    fix: "Call it in your plugin's `setup()`, and list `'database'` in its `dependsOn`.",
    message: ({ method }: { method: string }) =>
      `database.${method}() was called after the database started opening. Call it in your plugin's setup(), and list 'database' in its dependsOn.`,
  },
  FW_ERR_DATABASE_MISSING: {
    when: 'A command that does not create the database (`fw migrate --status`, `fw migrate:rollback`, `fw db:seed`, `fw health:check`) found that the database `DATABASE_URL` names does not exist (PostgreSQL: no such database on the server; PGlite: no data directory). Nothing is created.',
    fix: 'Fix `DATABASE_URL` if it is mistyped; else create the database with `fw migrate`.',
    message: ({ database }: { database: string }) =>
      `The database ${database} does not exist. Check DATABASE_URL, or create it with fw migrate.`,
  },
  FW_ERR_DATABASE_IN_USE: {
    when: "An on-disk embedded database (`pglite://<dir>`, `var/db` by default) was opened while another running process has it open (`fw dev`, `fw serve`, a command): PGlite allows one process per data directory. The lock is the file `<dir>.lock`, holding that process's pid; a lock whose process is gone is taken over.",
    fix: 'Stop the other process first (`fw dev`, `fw serve`), then run the command again; or set `DATABASE_URL` to a PostgreSQL database, which several processes share.',
    message: ({ dataDir, pid }: { dataDir: string; pid: number }) =>
      `The embedded database ${dataDir} is in use by process ${pid} (fw dev or fw serve?): PGlite allows one process per directory. Stop that process first, or set DATABASE_URL to a PostgreSQL database to share it between processes.`,
  },
  FW_ERR_DATABASE_NOT_CREATED: {
    when: 'In production (`NODE_ENV=production`), the PostgreSQL database `DATABASE_URL` names does not exist on its server. Outside production fw creates it (and logs that it did); in production a mistyped name must not become a new, empty database, so the start (or the command) stops.',
    fix: 'Fix `DATABASE_URL` if it is mistyped; else create the database first (`createdb <name>`), then start again.',
    message: ({ database, server }: { database: string; server: string }) =>
      `The database ${JSON.stringify(database)} does not exist on ${server}, and in production fw does not create one. Check DATABASE_URL, or create the database first (createdb ${database}).`,
  },
  FW_ERR_DATABASE_MIGRATION_IRREVERSIBLE: {
    when: '`fw migrate:rollback` would revert a migration that has no `down`, or one the app no longer has. Nothing was reverted.',
    fix: 'Give the migration a `down` (`defineMigration({ down })`, or a `down()` method), or roll back fewer steps.',
    message: ({ name, unknown }: { name: string; unknown?: boolean }) =>
      unknown === true
        ? `Migration ${name} ran but this app has no such migration, so it cannot be reverted; nothing was rolled back.`
        : `Migration ${name} has no down, so it cannot be reverted; nothing was rolled back.`,
  },
  FW_ERR_DATABASE_MIGRATIONS_PENDING: {
    when: '`fw db:seed` (or a plugin command that needs its tables, such as `fw user:create`) found migrations that have not run: the seeds would write into tables that are not there yet.',
    fix: 'Run `fw migrate` first (it seeds too). When the first is not written yet (its `up` has no statements), write its SQL or delete it first: `fw migrate` does not run it.',
    message: ({ count, first, unwritten }: { count: number; first: string; unwritten: boolean }) =>
      unwritten
        ? `${count} migration(s) have not run (first: ${first}, not written yet: its up has no statements). Write its SQL, or delete it, then run fw migrate.`
        : `${count} migration(s) have not run (first: ${first}). Run fw migrate first.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof databaseErrors> {}
}
