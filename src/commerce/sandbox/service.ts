/**
 * What other folders call of the sandbox commerce platform. Its rules live in one file per concern,
 * over the one dal.ts: adapter.ts (the platform behind the commerce port: stores, products, orders,
 * the app's install and plan), owners.ts (a store owner's sign-in and the ownership a sign-up asks
 * for), owner-gate.ts (the admin pages' sign-in and form checks) and generator.ts (made-up stores);
 * routes.ts, store-admin-routes.ts and pages.tsx are its HTTP face. It has no schemas.ts: its admin
 * route declares its one small body inline.
 */
export { SandboxCommerce } from './adapter.js';
export { ensureDemoStoreOwner, setSandboxOwner } from './owners.js';
export { OwnerGate } from './owner-gate.js';
