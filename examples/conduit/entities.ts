import type { User } from 'fw/plugins/auth'
import { deferEntity } from 'fw/plugins/database'

// Conduit's tables as entities, for the writes (create, change, delete through the request's
// EntityManager). `migrations.ts` stays the source of the schema: each declaration below states
// the table exactly as the migration creates it (columns, types, nulls, defaults, the unique slug,
// the foreign keys and their names, the indexes), which `test/examples/conduit-entities.test.ts`
// checks against the migrated database. An account is the auth plugin's `User` entity.
//
// `deferEntity` builds each schema when the database opens, from MikroORM's module handed to it:
// loading the app (`fw route:list`, `fw --help`) loads no MikroORM.

/**
 * A reference to another table's row, as the migration declares it: `<column> integer not null
 * references <table> (id) on delete cascade`, under PostgreSQL's name for the constraint.
 */
function references(table: string, column: string, entity: 'User' | 'Article', primary = false) {
  return {
    kind: 'm:1',
    entity,
    fieldName: column,
    primary,
    deleteRule: 'cascade',
    updateRule: 'no action',
    foreignKeyName: `${table}_${column}_fkey`,
  } as const
}

/** What a profile adds to an account (`user_profiles`); no row until `bio` or `image` is set. */
export class UserProfile {
  user!: User
  bio: string | null = null
  image: string | null = null
}

export const UserProfileSchema = deferEntity(
  UserProfile,
  ({ EntitySchema }) =>
    new EntitySchema<UserProfile>({
      class: UserProfile,
      tableName: 'user_profiles',
      properties: {
        // Its primary key is the account's: one profile per user.
        user: { ...references('user_profiles', 'user_id', 'User', true), kind: '1:1', owner: true },
        bio: { type: 'text', nullable: true },
        image: { type: 'text', nullable: true },
      },
    }),
)

/** `follower` follows `followed` (`follows`): the pair is the key. */
export class Follow {
  follower!: User
  followed!: User
}

export const FollowSchema = deferEntity(
  Follow,
  ({ EntitySchema }) =>
    new EntitySchema<Follow>({
      class: Follow,
      tableName: 'follows',
      properties: {
        follower: references('follows', 'follower_id', 'User', true),
        followed: references('follows', 'followed_id', 'User', true),
      },
    }),
)

/** An article (`articles`), found by its `slug`. */
export class Article {
  id!: number
  slug!: string
  title!: string
  description!: string
  body!: string
  /** Trimmed, without repeats, sorted (`controllers/articles.ts`). */
  tag_list!: string[]
  author!: User
  created_at!: Date
  updated_at!: Date
}

/** `created_at`/`updated_at`: `timestamptz not null default now()`; the app sets them on insert. */
const timestamp = { type: 'datetime', defaultRaw: 'now()' } as const

export const ArticleSchema = deferEntity(
  Article,
  ({ EntitySchema }) =>
    new EntitySchema<Article>({
      class: Article,
      tableName: 'articles',
      // The lists' indexes, by name and columns (the schema comparison ignores `desc` and `gin`).
      indexes: [
        { name: 'articles_newest', properties: ['created_at', 'id'] },
        { name: 'articles_author', properties: ['author', 'created_at', 'id'] },
        { name: 'articles_tags', properties: ['tag_list'], type: 'gin' },
      ],
      properties: {
        id: { type: 'integer', primary: true, autoincrement: true },
        slug: { type: 'string', length: 255, unique: 'articles_slug_key' },
        title: { type: 'text' },
        description: { type: 'text' },
        body: { type: 'text' },
        tag_list: { type: 'string[]', defaultRaw: `'{}'` },
        author: references('articles', 'author_id', 'User'),
        created_at: timestamp,
        // A flush that changes the article sets it; one that changes nothing writes nothing.
        updated_at: { ...timestamp, onUpdate: () => new Date() },
      },
    }),
)

/** `user` favorited `article` (`favorites`): the pair is the key. */
export class Favorite {
  user!: User
  article!: Article
}

export const FavoriteSchema = deferEntity(
  Favorite,
  ({ EntitySchema }) =>
    new EntitySchema<Favorite>({
      class: Favorite,
      tableName: 'favorites',
      indexes: [{ name: 'favorites_article', properties: ['article'] }],
      properties: {
        user: references('favorites', 'user_id', 'User', true),
        article: references('favorites', 'article_id', 'Article', true),
      },
    }),
)

/** A comment on an article (`comments`). */
export class Comment {
  id!: number
  article!: Article
  author!: User
  body!: string
  created_at!: Date
  updated_at!: Date
}

export const CommentSchema = deferEntity(
  Comment,
  ({ EntitySchema }) =>
    new EntitySchema<Comment>({
      class: Comment,
      tableName: 'comments',
      indexes: [{ name: 'comments_article', properties: ['article', 'id'] }],
      properties: {
        id: { type: 'integer', primary: true, autoincrement: true },
        article: references('comments', 'article_id', 'Article'),
        author: references('comments', 'author_id', 'User'),
        body: { type: 'text' },
        created_at: timestamp,
        updated_at: { ...timestamp, onUpdate: () => new Date() },
      },
    }),
)

/** The app's entities, for the database plugin's `entities` option (`app.ts`). */
export const entities = [
  UserProfileSchema,
  FollowSchema,
  ArticleSchema,
  FavoriteSchema,
  CommentSchema,
]
