/**
 * What other folders call of the OAuth domain. Its rules live in one file per concern, over the one
 * dal.ts: clients.ts (registered clients and brands' own apps), model.ts (the OAuth server's model:
 * codes, tokens, refresh), bearer.ts (access tokens on API requests), authorized-apps.ts (what a
 * brand has authorized), with the authorization request, code grant, scopes, tokens and revocation
 * beside them; routes.ts, admin-routes.ts and pages.tsx are its HTTP face.
 */
export { deleteBrandApp, listBrandApps, listOAuthClients, registerBrandApp, registerOAuthClient } from './clients.js';
export { listAuthorizedApps, revokeAuthorizedApp } from './authorized-apps.js';
export { OAuthBearerVerifier } from './bearer.js';
export { createOAuthModel, type OAuthModel } from './model.js';
