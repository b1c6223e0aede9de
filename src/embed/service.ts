/**
 * What the processes call of the merchant embed (the plugin a merchant adds to a store). Its rules
 * live in one file per concern, over the one dal.ts: onboarding.ts (a store's stages from install to a
 * live offer, hearing the commerce platforms' events), setup-worker.ts (store setup as durable jobs),
 * merchant-tokens.ts and embed-access.ts (the merchant's proof), merchant-stores.ts, stage.ts, and
 * the demo host (demo-host.ts); routes.ts and pages.tsx are its HTTP face, embed-contract.ts what the
 * browser code shares.
 */
export { Onboarding } from './onboarding.js';
export { SetupWorker } from './setup-worker.js';
export { challengeConfirmed } from './merchant-tokens.js';
export { DemoListenError, startDemoHost } from './demo-host.js';
