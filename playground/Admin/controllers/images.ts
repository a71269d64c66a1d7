import { existsSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { HttpError, json, view, type RequestContext } from 'fw'
import { file } from 'fw/plugins/uploads'

/** The image types a product may have, read from the file's content, with their extensions. */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
}

/** Where a product's image is served: the static mount of `uploads.dir` (playground/app.ts). */
export const MEDIA_PREFIX = '/media'

/** The product's image as `products/<id>.<ext>` under `uploads.dir`, when it has one. */
function imageOf(ctx: RequestContext, id: number): string | undefined {
  const dir = ctx.kernel.plugin('uploads').dir
  return Object.values(IMAGE_TYPES)
    .map((ext) => `products/${id}.${ext}`)
    .find((path) => existsSync(join(dir, path)))
}

async function productOf(ctx: RequestContext, option: string | undefined) {
  const id = Number(option)
  if (!Number.isSafeInteger(id) || id < 1) throw new HttpError(404, { error: 'not_found' })
  const [row] = await ctx.kernel.plugin('database').runStatement({
    sql: 'select id, name from products where id = ?',
    bindings: [id],
  })
  if (row === undefined) throw new HttpError(404, { error: 'not_found' })
  return { id, name: String((row as { name: unknown }).name) }
}

/**
 * The area's `images` controller: a product's image, uploaded by an editor (the area's floor) and
 * served back by the static files under `/media/products/`.
 */
export default class ImagesController {
  /** `GET /admin/images/edit/<id>`: the product's image, and a form that replaces it. */
  async edit(args: string[], ctx: RequestContext) {
    const product = await productOf(ctx, args[0])
    const image = imageOf(ctx, product.id)
    return view('image', {
      title: `Image of ${product.name}`,
      product,
      image: image === undefined ? null : `${MEDIA_PREFIX}/${image}`,
      types: Object.keys(IMAGE_TYPES).join(','),
    })
  }

  /**
   * `POST /admin/images/upload/<id>` with the form field `image` (PNG, JPEG, WebP or GIF by its
   * content, at most 5 MiB): replaces the product's image; answers `{ id, image }`, its URL.
   */
  async upload(args: string[], ctx: RequestContext) {
    if (ctx.method !== 'POST')
      throw new HttpError(405, { error: 'method_not_allowed' }, { headers: { allow: 'POST' } })
    const product = await productOf(ctx, args[0])
    const image = await file(ctx, 'image', {
      types: Object.keys(IMAGE_TYPES),
      maxFileSize: 5 * 1024 * 1024,
    })
    const previous = imageOf(ctx, product.id)
    const path = `products/${product.id}.${IMAGE_TYPES[image.type!]}`
    await image.moveTo(path, { overwrite: true })
    if (previous !== undefined && previous !== path)
      await unlink(join(ctx.kernel.plugin('uploads').dir, previous)).catch(() => undefined)
    return json({ id: product.id, image: `${MEDIA_PREFIX}/${path}` })
  }
}
