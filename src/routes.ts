import type { FastifyPluginAsync } from 'fastify';
import { platformRoutes } from './platforms/routes.js';

/** Every domain's HTTP routes, registered in this order. */
export const domainRoutes: FastifyPluginAsync[] = [platformRoutes];
