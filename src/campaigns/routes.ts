import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { platformHeader } from '../http/paging.js';
import { CampaignsQuery, CampaignsResponse } from './schemas.js';
import { listCampaigns } from './service.js';
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

export const campaignRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = runtime;

  app.get(
    '/v1/campaigns',
    {
      onRequest: app.requireBrand,
      preHandler: app.attributeListToPlatform,
      schema: {
        summary: "List the campaigns of the brand's collaborations",
        description:
          'Campaigns the brand owns or takes part in as partner, newest first, with their status now ' +
          '(a scheduled campaign is active from its startDate; any campaign is closed after its endDate).',
        operationId: 'listCampaigns',
        tags: ['brand'],
        security: BRAND_SECURITY,
        querystring: CampaignsQuery,
        headers: platformHeader,
        response: {
          200: described('One page of the campaigns with this status', CampaignsResponse),
          400: errorResponse('Unsupported status, pageIndex or pageSize out of range, or X-Platform-Id not an active platform', {
            error: 'invalid_request',
            message: 'status must be one of: draft, active, closed',
          }),
          401: BRAND_UNAUTHORIZED,
          429: RATE_LIMITED,
          500: LIST_NOT_LOADED,
          503: DATABASE_UNAVAILABLE,
        },
      },
    },
    async (request) => listCampaigns(db, brandOf(request).companyId, request.query, new Date()),
  );
};
