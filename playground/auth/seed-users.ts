import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { hashPassword, type AuthApi } from 'fw/plugins/auth'
import { DEMO_USERS, type DemoUser } from '../demo-data.js'

/**
 * Creates the demo users (playground/README.md "The demo data") through the auth plugin, each one
 * only when its username is free, so a second start writes nothing. A TOTP secret (alice's) is
 * sealed under the application key; created without `FW_APP_KEY`, she exists but cannot finish a
 * sign-in until a start with a key seals her secret (without a key no token can be issued anyway).
 */
export async function seedDemoUsers(auth: AuthApi, em: EntityManager): Promise<boolean> {
  let wrote = false
  const missing: DemoUser[] = []
  for (const user of DEMO_USERS) {
    if ((await auth.findUser(user.username, em)) === undefined) missing.push(user)
    else if (user.totp_secret !== null)
      wrote = (await auth.sealPendingTotp(user.username, user.totp_secret, em)) || wrote
  }
  // The passwords hashed at once (scrypt, ~50 ms each, on the thread pool), the users created in
  // order: their ids stay 1…4.
  const hashes = await Promise.all(missing.map((user) => hashPassword(user.password)))
  for (const [i, user] of missing.entries()) {
    await auth.createUser(
      {
        username: user.username,
        passwordHash: hashes[i]!,
        email: `${user.username}@playground.test`,
        usertype: user.usertype,
        totpSecret: user.totp_secret,
      },
      em,
    )
    wrote = true
  }
  return wrote
}
