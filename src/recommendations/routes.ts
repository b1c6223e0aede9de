import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { badRequest } from '../http/errors.js';
import { platformHeader } from '../http/paging.js';
import { MAX_RECOMMENDATIONS, RecommendationsResponse } from './schemas.js';
import { listRecommendations } from './service.js';
import {
  BRAND_SECURITY,
  BRAND_UNAUTHORIZED,
  DATABASE_UNAVAILABLE,
  described,
  errorResponse,
  LIST_NOT_LOADED,
  RATE_LIMITED,
} from '../http/schemas.js';
import type { Runtime } from '../composition.js';

export const recommendationRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = runtime;

  app.get(
    '/v1/discover/partner/recommendations',
    {
      onRequest: app.requireBrand,
      preValidation: async (request) => {
        // Refused rather than ignored: a client sending them would believe it is paging.
        const query = request.query as Record<string, unknown>;
        for (const name of ['pageIndex', 'pageSize']) {
          if (name in query) {
            throw badRequest(
              `query parameter ${name} is not supported: recommendations are not paged (at most ${MAX_RECOMMENDATIONS}, best first)`,
            );
          }
        }
      },
      preHandler: app.attributeListToPlatform,
      schema: {
        summary: 'Recommended partner brands',
        description:
          `At most ${MAX_RECOMMENDATIONS} brands the caller has no pending or active partnership with: scored ones best ` +
          'first, then brands not scored yet (without matchRate), newest first. Not paged.',
        operationId: 'listRecommendations',
        tags: ['brand'],
        security: BRAND_SECURITY,
        headers: platformHeader,
        response: {
          200: described('The recommended brands, best first', RecommendationsResponse),
          400: errorResponse('X-Platform-Id is not an active platform, or pageIndex or pageSize was sent', {
            error: 'invalid_request',
            message: 'X-Platform-Id is not an active platform',
          }),
          401: BRAND_UNAUTHORIZED,
          429: RATE_LIMITED,
          500: LIST_NOT_LOADED,
          503: DATABASE_UNAVAILABLE,
        },
      },
    },
    async (request) => listRecommendations(db, brandOf(request).companyId),
  );
};
