// The kernel's error codes: when each is raised, what to do, and its message. docs/errors.md is
// generated from this file and from every plugin's registry (`npm run docs:errors`).
import { defineErrors, duplicateCode, type CodesOf } from './errors.js'

const lifecycle = {
  FW_ERR_PLUGIN_INVALID: {
    when: '`definePlugin()` got no `name` (or an empty one), no `setup` function, or a `config` slice whose `defaults` and `schema` do not agree. Thrown where the plugin is defined.',
    fix: 'Give the record a non-empty `name` and a `setup(kernel, options)`; give every default a schema rule. The message names the mistake.',
    message: ({ plugin, problem }: { plugin?: string; problem?: string }) =>
      plugin === undefined || problem === undefined
        ? 'definePlugin() needs a non-empty `name` and a `setup(kernel, options)` function.'
        : `Plugin '${plugin}': ${problem}`,
  },
  FW_ERR_PLUGIN_DUPLICATE: {
    when: 'At boot: two registrations share a name.',
    fix: 'Register each plugin once, with all its options in one `register()` call.',
    message: ({ name }: { name: string }) =>
      `Plugin '${name}' is registered twice. Register each plugin once (pass all its options in one register() call).`,
  },
  FW_ERR_PLUGIN_MISSING_DEPENDENCY: {
    when: "At boot: a plugin's `dependsOn` names a plugin that is not registered.",
    fix: 'Register the dependency too (order does not matter: `dependsOn` decides).',
    message: ({ plugin, dependency }: { plugin: string; dependency: string }) =>
      `Plugin '${plugin}' depends on '${dependency}', which is not registered. Register '${dependency}' as well.`,
  },
  FW_ERR_PLUGIN_CYCLE: {
    when: 'At boot: plugins depend on each other in a cycle; the message names it (`a → b → c → a`).',
    fix: 'Remove one of the `dependsOn` (or `optionalDependsOn`) entries of the cycle.',
    message: ({ cycle }: { cycle: readonly string[] }) =>
      `Plugins depend on each other in a cycle: ${cycle.join(' → ')}. Remove one of these dependsOn (or optionalDependsOn) entries.`,
  },
  FW_ERR_PLUGIN_UNKNOWN: {
    when: '`kernel.plugin(name)` for a plugin that is not registered, or that is registered but not set up yet.',
    fix: "Register it; or add it to your plugin's `dependsOn`; or ask for it inside a `boot` tap, when every plugin is set up.",
    message: ({ name, registered }: { name: string; registered: boolean }) =>
      registered
        ? `Plugin '${name}' is registered but not set up yet. Add '${name}' to your plugin's dependsOn, or ask for it inside a boot tap.`
        : `Plugin '${name}' is not registered. Register it with kernel.register(...) before boot.`,
  },
  FW_ERR_PLUGIN_UNDECLARED: {
    when: "A plugin's `setup` calls `kernel.plugin(name)` or `kernel.hasPlugin(name)` for a plugin it lists in neither `dependsOn` nor `optionalDependsOn`.",
    fix: 'Declare the use: `dependsOn` if the plugin cannot work without it, `optionalDependsOn` if it can.',
    message: ({ plugin, method, name }: { plugin: string; method: string; name: string }) =>
      `Plugin '${plugin}' calls kernel.${method}('${name}') in its setup without declaring it. Add '${name}' to its dependsOn (or to optionalDependsOn if it works without it).`,
  },
  FW_ERR_KERNEL_STATE: {
    when: 'A kernel method in the wrong lifecycle state: `register()` after boot started, `boot()` after `close()`, `listen()` after `close()` or while already listening.',
    fix: 'Register before `boot()`; create a new kernel after `close()`; `close()` before listening again.',
    message: ({ action, state, expected }: { action: string; state: string; expected: string }) =>
      `Cannot ${action} while the kernel is ${state}; that is only possible while it is ${expected}.`,
  },
  FW_ERR_ERRORS_DUPLICATE: duplicateCode,
  FW_ERR_PACKAGE_MISSING: {
    when: 'A feature the app uses needs a package that fw lists as an optional peer dependency (OpenTelemetry for tracing, prom-client for metrics, ioredis for a Redis check, fast-xml-parser for XML replies, otpauth for second factors, pino for the logging plugin), and the app has not installed it. Raised where the feature is first used: at boot, or on the request that needs it.',
    fix: 'Install the package the message names in the app (`npm install <package>`), or stop using the feature. Each plugin README says which of its features need which package.',
    message: ({ name, feature, range }: { name: string; feature: string; range?: string }) =>
      `The package ${name} is not installed, and ${feature} needs it. Install it in the app: npm install ${range === undefined ? name : `${name}@'${range}'`}`,
  },
} as const

export const kernelErrors = defineErrors(
  { owner: 'kernel', title: 'Kernel: plugins and lifecycle' },
  lifecycle,
)

export const compileErrors = defineErrors(
  {
    owner: 'kernel',
    title: 'Kernel: middleware, controllers, bindings',
    intro:
      'Checked when the kernel compiles a route: at boot for every declared route (so boot fails), or on first use for a route added later or returned by a custom `route` tap (then that request answers 500).',
  },
  {
    FW_ERR_MIDDLEWARE_UNKNOWN: {
      when: 'A route, group, resource or `@controller` names middleware that was never registered.',
      fix: "`kernel.middleware(name, fn)` in your plugin's `setup`, or remove the name.",
      message: ({ route, name }: { route: string; name: string }) =>
        `Route '${route}' uses middleware '${name}', which is not registered. Register it with kernel.middleware('${name}', fn) or remove it from the route.`,
    },
    FW_ERR_MIDDLEWARE_DUPLICATE: {
      when: '`kernel.middleware(name, fn)` for a name already taken. Thrown at once.',
      fix: "Pick another name; prefix it with your plugin's name.",
      message: ({ name }: { name: string }) =>
        `Middleware '${name}' is already registered. Pick another name.`,
    },
    FW_ERR_MIDDLEWARE_NO_REPLY: {
      when: 'Per request: a middleware resolved to something other than a `Reply`, usually `await next()` without `return`. The request answers 500.',
      fix: 'End the middleware with `return next()`, or return a reply to answer early.',
      message: ({ name }: { name: string }) =>
        `Middleware '${name}' did not return a reply. End it with \`return next()\` (or return a reply to answer early).`,
    },
    FW_ERR_CONTROLLER_UNKNOWN: {
      when: "A string handler (`'Users@index'`, with any group `namespace` prepended) names a controller not registered.",
      fix: "`kernel.controller('Admin.Users', UsersController)` under the full name the message shows.",
      message: ({ route, name }: { route: string; name: string }) =>
        `Route '${route}' points to controller '${name}', which is not registered. Register it with kernel.controller('${name}', ${name.split('.').pop()}).`,
    },
    FW_ERR_CONTROLLER_ACTION: {
      when: 'A handler names a method its controller class does not have.',
      fix: 'Add the method, or point the route elsewhere.',
      message: ({ route, action }: { route: string; action: string }) =>
        `Route '${route}' points to ${action}(), which does not exist. Add the method or point the route elsewhere.`,
    },
    FW_ERR_BINDING_UNKNOWN: {
      when: "A route binds a placeholder to a model (`.bind('product', 'Product')`) with no loader.",
      fix: "`kernel.binding('Product', async (value, ctx) => …)`.",
      message: ({ route, param, model }: { route: string; param: string; model: string }) =>
        `Route '${route}' binds '{${param}}' to model '${model}', but no loader is registered for it. Register one with kernel.binding('${model}', loader).`,
    },
  },
)

export const configErrors = defineErrors(
  {
    owner: 'kernel',
    title: 'Kernel: configuration',
    intro:
      "Thrown by `createKernel()` (the kernel's keys) and at `register()` (a plugin's config slice), so before anything runs.",
  },
  {
    FW_ERR_CONFIG_INVALID: {
      when: "A configuration key has the wrong type or is outside its rule's bounds, e.g. `Config key 'http.port' must be an integer from 0 to 65535, got 70000.`, or its rule's `check` found a problem: `Config key 'shop.currency' is invalid (got \"eur\"): use a three-letter code such as EUR.` A secret key's value is masked.",
      fix: 'Fix the value in your config (or in `FW_CONFIG`, which is merged over it).',
      message: (a: { key: string; got: string } & ({ expected: string } | { problem: string })) =>
        'expected' in a
          ? `Config key '${a.key}' must be ${a.expected}, got ${a.got}.`
          : `Config key '${a.key}' is invalid (got ${a.got}): ${a.problem}.`,
    },
    FW_ERR_CONFIG_ENV: {
      when: "An environment variable cannot be used: `PORT` (or a plugin slice's variable) is not digits or not a boolean, `FW_CONFIG` is not valid JSON or not a JSON object.",
      fix: 'Fix the variable: `PORT=3000`, `FW_CONFIG=\'{"features":["debug"]}\'`.',
      message: ({ variable, problem }: { variable: string; problem: string }) =>
        `Environment variable ${variable} ${problem}`,
    },
    FW_ERR_CONFIG_KEY_TAKEN: {
      when: "At `register()`: a plugin's config slice declares a top-level key the kernel or another plugin already declares.",
      fix: 'Rename the key of one of them: a top-level key has one owner.',
      message: ({ key, taken, owner }: { key: string; taken: string; owner: string }) =>
        `Config key '${key}' is declared by ${taken} and by plugin '${owner}'. A top-level key has one owner: rename one of them.`,
    },
  },
)

export const requestErrors = defineErrors(
  {
    owner: 'kernel',
    title: 'Kernel: requests',
    intro:
      'The `FW_ERR_HTTP_*` codes are the caller\'s fault, carried by `HttpError`s (`error.code`) with the JSON body `{"error": …, "message": …}`.',
  },
  {
    FW_ERR_VIEW_NO_ENGINE: {
      when: 'A handler returned `view(...)` (or a route was declared with `router.view()`), and no `render` tap turned it into HTML.',
      fix: 'Register a views plugin, or return `html(...)`.',
      message: ({ template }: { template: string }) =>
        `A handler returned the view '${template}', but no view engine is registered. Register a views plugin, or return html(...).`,
    },
    FW_ERR_HTTP_BODY_TOO_LARGE: {
      when: '`ctx.body()`: the body is over `http.body_limit` bytes (1 MiB by default), by `Content-Length` or by the bytes read.',
      fix: 'The client sends less; or raise `http.body_limit`.',
      status: 413,
      error: 'payload_too_large',
      message: ({ limit }: { limit: number }) => `The request body exceeds ${limit} bytes.`,
    },
    FW_ERR_HTTP_BODY_MALFORMED: {
      when: '`ctx.body()`: the body does not parse as its `Content-Type` says (JSON, form-urlencoded).',
      fix: "The client's fault: fix the body.",
      status: 400,
      error: 'malformed_body',
      message: ({ what }: { what: string }) => `The request body is not valid ${what}.`,
    },
    FW_ERR_HTTP_BODY_INCOMPLETE: {
      when: '`ctx.body()`: the connection closed or broke (an aborted upload, a malformed chunk) before the body was whole. Usually nobody is left to read the answer.',
      fix: "The client's fault: send the whole body.",
      status: 400,
      error: 'incomplete_body',
      message: 'The request body ended before it was complete.',
    },
    FW_ERR_HTTP_HOST_DUPLICATE: {
      when: 'The request carries more than one `Host` header (HTTP/1.1 requires exactly one; two let a proxy and the app disagree on which site is asked). Answered by the server before the pipeline, with `Connection: close`.',
      fix: "The client's fault: send one `Host` header.",
      status: 400,
      error: 'bad_request',
      message: 'The request has more than one Host header.',
    },
    FW_ERR_HTTP_BODY_INVALID: {
      when: "The body does not match the JSON Schema its route declares (`.schema({ body })`). The reply also carries `errors` (`{ field: [sentences] }`) and `issues` (the validator's error collection: `field`, `keyword`, `message`, `params`).",
      fix: "The client's fault: send what the route's schema (and the API document) says.",
      status: 422,
      error: 'invalid_body',
      message: 'The request body does not match the schema of this route.',
    },
    FW_ERR_HTTP_UNSUPPORTED_MEDIA: {
      when: '`ctx.body()`: a `multipart/*` body, which the kernel does not parse.',
      fix: 'Read the body with the uploads plugin (`files(ctx)`, `file(ctx, name)`), or a parser of your own over `ctx.rawBody()`.',
      status: 415,
      error: 'unsupported_media_type',
      message: 'Multipart bodies are not parsed by the kernel.',
    },
  },
)

declare module './errors.js' {
  interface ErrorCodes
    extends
      CodesOf<typeof kernelErrors>,
      CodesOf<typeof compileErrors>,
      CodesOf<typeof configErrors>,
      CodesOf<typeof requestErrors> {}
}
