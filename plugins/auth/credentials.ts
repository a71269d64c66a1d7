// `fw/plugins/auth/credentials`: what another plugin may use of the auth plugin's credentials
// without registering or loading it (no jsonwebtoken, otpauth or ORM). The api plugin, which lists
// auth as optional, hashes application secrets and leaves token-carrying requests to auth with it.
export { hashPassword, verifyPassword } from './passwords.js'
export { presentedToken, type PresentedToken } from './presented-token.js'
