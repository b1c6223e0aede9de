import type { FastifyPluginAsync } from 'fastify';
import type { Runtime } from './composition.js';
import { platformRoutes } from './platforms/routes.js';
import { pluginRoutes } from './embed/routes.js';
import { adminRoutes } from './admin/routes.js';
import { partnershipRoutes } from './partnerships/routes.js';
import { campaignRoutes } from './campaigns/routes.js';
import { recommendationRoutes } from './recommendations/routes.js';
import { attributionRoutes } from './attribution/routes.js';
import { offersRoutes } from './offers/routes.js';
import { accountRoutes } from './accounts/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { oauthAdminRoutes } from './oauth/admin-routes.js';
import { sandboxRoutes } from './commerce/sandbox/routes.js';
import { shopifyRoutes } from './commerce/shopify/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { orderRoutes } from './orders/routes.js';
import { assetRoutes, landingRoutes } from './site/routes.js';
import { demoImageRoutes } from './demo/routes.js';

/**
 * Every domain's HTTP routes. Each is given the runtime (src/composition.ts) and builds no shared
 * service of its own, so none depends on another having been registered first.
 */
export const domainRoutes: Array<FastifyPluginAsync<Runtime>> = [
  platformRoutes,
  adminRoutes,
  partnershipRoutes,
  campaignRoutes,
  recommendationRoutes,
  attributionRoutes,
  offersRoutes,
  accountRoutes,
  oauthRoutes,
  oauthAdminRoutes,
  sandboxRoutes,
  shopifyRoutes,
  pluginRoutes,
  dashboardRoutes,
  orderRoutes,
  assetRoutes,
  demoImageRoutes,
  landingRoutes,
];
