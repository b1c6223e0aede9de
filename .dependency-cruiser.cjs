/**
 * Import boundaries (docs/architecture.md, "Layers and boundaries"), checked by `npm run lint`
 * and so by `npm test` and CI. Test files are left out of the cruise: they may import anything,
 * and their imports of test/support would show as folder cycles that production code does not have.
 * Type-only imports count (tsPreCompilationDeps): a type is a dependency too.
 */

/** What the embed app, the loader and the service share: stages, messages, discount choices. */
const EMBED_CONTRACT = '^src/embed/embed-contract[.]ts$';

/** The shared layers at the bottom: no tables, no domain rules; every domain may import them. */
const SHARED_LAYERS = '^src/(shared|http|db|cache|jobs)/|^src/(config|config-schema|service-context)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-test-code-in-production',
      comment: 'Production code never imports test helpers: they live under test/ and only tests import them.',
      severity: 'error',
      from: { path: '^(src|web)/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Domain folders depend one way: a folder that imports another is never imported back by it, directly or ' +
        'through others. Move a primitive two folders share down to src/shared or src/http, or into the lower domain.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|web)/' },
      to: { circular: true },
    },
    {
      name: 'shared-layers-import-no-domain',
      comment:
        'src/shared, src/http, src/db, src/cache, src/jobs, src/config.ts, src/config-schema.ts and src/service-context.ts ' +
        'sit below every domain folder and import none (route plugins may name the Runtime type of src/composition.ts).',
      severity: 'error',
      from: { path: SHARED_LAYERS },
      to: { path: '^src/', pathNot: `${SHARED_LAYERS}|^src/composition[.]ts$` },
    },
    {
      name: 'entry-points-import-folders-not-back',
      comment:
        'The processes (server, worker, CLI), the app and the route list import the folders of src/; no folder imports ' +
        'them. Of the files at the top of src/, folders import only config.ts, service-context.ts and composition.ts.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+[.]tsx?$', pathNot: '^src/(config|service-context|composition)[.]ts$' },
    },
    {
      name: 'composition-root-gives-only-its-runtime-type',
      comment:
        'src/composition.ts builds every shared service and imports the domains: route plugins name its Runtime type ' +
        '(`import type`), nothing imports its code but the processes.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/composition[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'server-imports-no-browser-code',
      comment:
        'The service never imports web/: the server compiles to dist/ on its own, and what both sides need (the embed ' +
        'contract) lives in src/embed/embed-contract.ts, which both import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'embed-contract-imports-nothing',
      comment:
        'src/embed/embed-contract.ts is bundled into the browser code (the embed app and the published loader), so it ' +
        'imports nothing: no server module can ride along into a bundle through it.',
      severity: 'error',
      from: { path: EMBED_CONTRACT },
      to: {},
    },
    {
      name: 'web-imports-only-server-types',
      comment:
        'Browser code (web/) never bundles server modules: from src/ it takes type-only imports (`import type`), and only ' +
        "of a domain's schemas or response shapes. The values both sides need live in src/embed/embed-contract.ts.",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: EMBED_CONTRACT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-imports-only-schema-types',
      comment: "The server types web/ may import: a domain's schemas.ts (TypeBox response types), the embed page's shapes and the embed contract.",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: `^src/[^/]+/(schemas|embed-view)[.]ts$|${EMBED_CONTRACT}` },
    },
    {
      name: 'imports-resolve',
      comment: 'Every import resolves, so the rules above see the whole graph.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '[.]test[.]tsx?$|^web/loader/published/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      conditionNames: ['import', 'node', 'types', 'default', 'require'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
