import { definePluginErrors, type CodesOf } from 'fw'

/** The debug plugin's error codes. */
export const debugErrors = definePluginErrors('debug', {
  FW_ERR_DEBUG_ASSETS: {
    when: "The toolbar's script cannot be served: it is not built and esbuild is not installed to build it, or the fw package root (where the assets live) cannot be found.",
    fix: 'Run `npm run build` in the fw package (an installed fw ships them built).',
    message: ({ built }: { built: boolean }) =>
      built
        ? 'Cannot find the fw package root for the toolbar assets.'
        : 'The debug toolbar is not built and esbuild is not installed to build it. Run `npm run build` in the fw package.',
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof debugErrors> {}
}
