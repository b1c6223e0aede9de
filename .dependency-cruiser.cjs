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

/**
 * The domain tiers of docs/architecture.md, highest first: a folder imports folders of lower tiers
 * only, never one of its own tier or a higher one. The front ends sit above every domain.
 */
const TIERS = [
  { name: 'front ends', folders: ['dashboard', 'embed', 'site'] },
  { name: 'demo data', folders: ['demo'] },
  { name: 'top domains', folders: ['admin', 'oauth', 'offers', 'partnerships', 'recommendations'] },
  { name: 'campaigns and accounts', folders: ['campaigns', 'accounts'] },
  { name: 'credentials and commerce', folders: ['auth', 'commerce'] },
  { name: 'orders', folders: ['orders'] },
  { name: 'base domains', folders: ['companies', 'attribution', 'platforms'] },
];

/** Which tier a folder sits in may change with a design; that every folder has one may not (test/architecture). */
const folderGroup = (folders) => `^src/(${folders.join('|')})/`;

/** One rule per tier: its folders import no folder of their own tier or a higher one (their own folder aside). */
const tierRules = TIERS.map((tier, index) => ({
  name: `domain-tiers: ${tier.name}`,
  comment:
    `${tier.folders.join(', ')} import only folders of lower tiers (docs/architecture.md, "Layers and boundaries"). ` +
    'Move what two folders share into the lower one, or down to src/shared or src/http.',
  severity: 'error',
  from: { path: folderGroup(tier.folders) },
  to: { path: folderGroup(TIERS.slice(0, index + 1).flatMap((higher) => higher.folders)), pathNot: '^src/$1/' },
}));

/** A domain's SQL: dal.ts, and the named dals of a folder with more than one (credentials-dal.ts, statements-dal.ts). */
const DAL = '(^|/|-)dal[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...tierRules,
    {
      name: 'no-dal-across-folders',
      comment:
        "A folder reads and writes another domain's tables through that domain's service, never its dal. The demo " +
        "loader alone calls the owners' bulk upserts directly (one statement per table, docs/architecture.md).",
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: '^src/demo/' },
      to: { path: `^src/.*${DAL}`, pathNot: '^src/$1/' },
    },
    {
      name: 'routes-import-no-dal',
      comment: 'A route calls services, never a dal, not even its own folder\'s: the service checks, writes and publishes.',
      severity: 'error',
      from: { path: '(^|/|-)routes[.]tsx?$' },
      to: { path: DAL },
    },
    {
      name: 'migrations-import-no-live-code',
      comment:
        'A landed migration gives the same result for ever: it imports nothing of src/, and a rule it needs (a domain ' +
        'canonicalization) is copied into it as it stood, not imported from code that may change.',
      severity: 'error',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/migrations/' },
    },
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
      name: 'shared-imports-no-http',
      comment:
        'src/shared holds pure primitives (tokens, hashes, the domain and email rules) that know no request: what ' +
        'answers a request (a 400 for a malformed email) lives in src/http, which may import src/shared.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/http/' },
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
