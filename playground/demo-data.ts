// The demo data (playground/README.md "The demo data"), as plain values: the users, the
// application, the categories, and 1,000 products drawn from a seeded PRNG so that every fresh
// database holds exactly the same rows.

/** A user of the demo data, with the password in clear (hashed by the seed). */
export interface DemoUser {
  readonly username: string
  readonly password: string
  readonly usertype: number
  readonly totp_secret: string | null
}

/** The four demo users. */
export const DEMO_USERS: readonly DemoUser[] = [
  { username: 'admin', password: 'admin-pass', usertype: 100, totp_secret: null },
  { username: 'editor', password: 'editor-pass', usertype: 50, totp_secret: null },
  { username: 'user', password: 'user-pass', usertype: 1, totp_secret: null },
  {
    username: 'alice',
    password: 'alice-pass',
    usertype: 1,
    totp_secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  },
]

/** The demo application: its API key is the OAuth `client_id`, its secret the `client_secret`. */
export const DEMO_APPLICATION = {
  name: 'playground',
  apiKey: 'demo-api-key',
  secret: 'demo-api-secret',
} as const

/** The ten categories, ids 1…10 in this order. */
export const DEMO_CATEGORIES: readonly string[] = [
  'Books',
  'Electronics',
  'Garden',
  'Home',
  'Kitchen',
  'Music',
  'Office',
  'Outdoor',
  'Sports',
  'Toys',
]

/** How many products the seed writes. */
export const DEMO_PRODUCT_COUNT = 1000

/** A product row as the seed inserts it. */
export interface DemoProduct {
  id: number
  name: string
  sku: string
  price: number
  stock: number
  active: boolean
  tags: string[]
  notes: string | null
  category_id: number
  created_at: Date
}

const ADJECTIVES = [
  'Basic',
  'Classic',
  'Compact',
  'Deluxe',
  'Eco',
  'Handy',
  'Modern',
  'Pro',
  'Smart',
  'Sturdy',
  'Tiny',
  'Vintage',
]
const NOUNS = [
  'Adapter',
  'Bottle',
  'Cable',
  'Chair',
  'Clock',
  'Desk',
  'Kettle',
  'Lamp',
  'Mug',
  'Notebook',
  'Speaker',
  'Tent',
]
const TAGS = [
  'new',
  'sale',
  'eco',
  'premium',
  'bestseller',
  'limited',
  'gift',
  'outdoor',
  'kids',
  'office',
]
const NOTES = [
  'Ships in two days.',
  'Assembly required.',
  'Batteries not included.',
  'Hand wash only.',
  'Back in stock soon.',
  'Customer favourite; 50% off the second one.',
]
const YEAR_2025 = Date.UTC(2025, 0, 1)
const SECONDS_IN_2025 = 365 * 24 * 3600
/** The PRNG seed: change it and every product changes (the seed test's checksum records it). */
const PRODUCT_SEED = 20250101

/** mulberry32: a tiny 32-bit PRNG, good enough for demo data and identical on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The demo products, ids 1…1000: names `Product 0001 Sturdy Lamp`, skus `PG-0001`, prices with two
 * decimals, integer stock, about 15 % inactive, 0–3 tags, notes NULL in about a third of the rows,
 * categories 1–10, creation times spread over 2025 (UTC, whole seconds).
 */
export function demoProducts(count = DEMO_PRODUCT_COUNT): DemoProduct[] {
  const random = mulberry32(PRODUCT_SEED)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const products: DemoProduct[] = []
  for (let id = 1; id <= count; id++) {
    const number = String(id).padStart(4, '0')
    const name = `Product ${number} ${pick(ADJECTIVES)} ${pick(NOUNS)}`
    const cents = 99 + Math.floor(random() * 99_901) // 0.99 … 999.99
    const stock = random() < 0.08 ? 0 : 1 + Math.floor(random() * 500)
    const active = random() >= 0.15
    const tagCount = Math.floor(random() * 4)
    const tags: string[] = []
    while (tags.length < tagCount) {
      const tag = pick(TAGS)
      if (!tags.includes(tag)) tags.push(tag)
    }
    const notes = random() < 0.35 ? null : pick(NOTES)
    const category_id = 1 + Math.floor(random() * DEMO_CATEGORIES.length)
    const created_at = new Date(YEAR_2025 + Math.floor(random() * SECONDS_IN_2025) * 1000)
    products.push({
      id,
      name,
      sku: `PG-${number}`,
      price: cents / 100,
      stock,
      active,
      tags,
      notes,
      category_id,
      created_at,
    })
  }
  return products
}
