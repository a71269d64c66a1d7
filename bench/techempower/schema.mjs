// The TechEmpower schema and data: `world` (10,000 rows {id, randomnumber}) and `fortune` (the 12
// standard fortunes, among them a `<script>` row and a Japanese one). PostgreSQL folds the
// unquoted `randomNumber` of the original schema to `randomnumber`; every app selects it as
// "randomNumber". The statements are idempotent (`if not exists`, `on conflict do nothing`), so
// the bench runs them on a fresh PostgreSQL database and the fw app can run them as a migration
// (`migrate: true`, for PGlite).

/** The fortunes of the `fortune` table, by id. */
export const FORTUNES = [
  [1, 'fortune: No such file or directory'],
  [2, "A computer scientist is someone who fixes things that aren't broken."],
  [3, 'After enough decimal places, nobody gives a damn.'],
  [4, 'A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1'],
  [5, 'A computer program does what you tell it to do, not what you want it to do.'],
  [6, 'Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen'],
  [7, 'Any program that runs right is obsolete.'],
  [8, 'A list is only as strong as its weakest link. — Donald Knuth'],
  [9, 'Feature: A bug with seniority.'],
  [10, 'Computers make very fast, very accurate mistakes.'],
  [11, '<script>alert("This should not be displayed in a browser alert box.");</script>'],
  [12, 'フレームワークのベンチマーク'],
]

/** The fortune every app adds at request time, with id 0. */
export const ADDED_FORTUNE = 'Additional fortune added at request time.'

const literal = (s) => `'${s.replaceAll("'", "''")}'`

/** The statements creating and filling both tables, in order. */
export const SCHEMA_STATEMENTS = [
  'create table if not exists world (id integer not null primary key, randomnumber integer not null default 0)',
  'create table if not exists fortune (id integer not null primary key, message varchar(2048) not null)',
  `insert into world (id, randomnumber)
     select i, 1 + floor(random() * 10000)::integer from generate_series(1, 10000) as i
     on conflict do nothing`,
  `insert into fortune (id, message) values ${FORTUNES.map(([id, m]) => `(${id}, ${literal(m)})`).join(', ')}
     on conflict do nothing`,
]
