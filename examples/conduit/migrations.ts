import { defineMigration } from 'fw/plugins/database'

/** The unique index on `lower(email)`: its name tells which field a refused duplicate was. */
export const EMAIL_UNIQUE = 'users_email_lower_unique'

/**
 * Conduit's tables, beside the auth plugin's `users` (the account: username, email, password).
 * Named `Migration…` so they sort after auth's `Migration20261121130000_create_auth_tables`:
 * every migration of the app runs in name order, and these reference `users`.
 */
export const migrations = [
  defineMigration({
    name: 'Migration20261126120000_create_conduit_tables',
    up: [
      // What a profile adds to an account.
      `create table user_profiles (
        user_id integer primary key references users (id) on delete cascade,
        bio text null,
        image text null
      )`,
      `create table follows (
        follower_id integer not null references users (id) on delete cascade,
        followed_id integer not null references users (id) on delete cascade,
        primary key (follower_id, followed_id)
      )`,
      `create table articles (
        id serial primary key,
        slug varchar(255) not null unique,
        title text not null,
        description text not null,
        body text not null,
        tag_list text[] not null default '{}',
        author_id integer not null references users (id) on delete cascade,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      // The lists: newest first, all of them or one author's; by tag through the array index.
      'create index articles_newest on articles (created_at desc, id desc)',
      'create index articles_author on articles (author_id, created_at desc, id desc)',
      'create index articles_tags on articles using gin (tag_list)',
      `create table favorites (
        user_id integer not null references users (id) on delete cascade,
        article_id integer not null references articles (id) on delete cascade,
        primary key (user_id, article_id)
      )`,
      'create index favorites_article on favorites (article_id)',
      `create table comments (
        id serial primary key,
        article_id integer not null references articles (id) on delete cascade,
        author_id integer not null references users (id) on delete cascade,
        body text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      'create index comments_article on comments (article_id, id)',
    ],
    down: [
      'drop table comments',
      'drop table favorites',
      'drop table articles',
      'drop table follows',
      'drop table user_profiles',
    ],
  }),
  // RealWorld's emails are unique like its usernames. Checking before inserting answers the usual
  // case with both messages; this index is what holds when two registrations race (see
  // controllers/users.ts, `takenFailure`).
  defineMigration({
    name: 'Migration20261127120000_unique_emails',
    up: [`create unique index ${EMAIL_UNIQUE} on users (lower(email))`],
    down: [`drop index ${EMAIL_UNIQUE}`],
  }),
]
