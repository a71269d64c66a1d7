// The statement behind every article the Conduit example shows. No imports: the benchmark's
// bare baseline server bundles it without the framework.

/**
 * One statement reads a page of articles with everything shown about each: the author's profile
 * (a join), whether the viewer follows the author and favorited the article (`exists`), and the
 * article's favorites (a count on the `favorites_article` index). The viewer is bound twice;
 * the same columns serve the lists and the single article, so a page costs the same whatever its
 * size: this statement and the count. The baseline of bench/conduit.ts
 * (bench/lib/server-conduit-pg.ts) sends these same statements, so both servers do the same work
 * in the database.
 */
export function selectArticles(withBody: boolean): string {
  return `select a.id, a.slug, a.title, a.description,${withBody ? ' a.body,' : ''} a.tag_list,
    a.created_at, a.updated_at, u.username, p.bio, p.image,
    exists (select 1 from follows f where f.follower_id = ? and f.followed_id = a.author_id) as following,
    exists (select 1 from favorites v where v.user_id = ? and v.article_id = a.id) as favorited,
    (select count(*) from favorites v where v.article_id = a.id)::int as favorites_count
  from articles a
  join users u on u.id = a.author_id
  left join user_profiles p on p.user_id = a.author_id`
}
