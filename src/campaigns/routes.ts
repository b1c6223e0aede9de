import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { platformHeader } from '../http/paging.js';
import { CampaignsQuery, CampaignsResponse } from './schemas.js';
import { listCampaigns } from './service.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

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
        tags: ['brand'],
        security: [{ apiKey: [] }, { bearer: [] }],
        querystring: CampaignsQuery,
        headers: platformHeader,
        response: { 200: CampaignsResponse, 400: errorRef, 401: errorRef, 500: errorRef },
      },
    },
    async (request) => listCampaigns(db, brandOf(request).companyId, request.query, new Date()),
  );
};
