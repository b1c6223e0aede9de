import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { platformHeader } from '../http/paging.js';
import { PartnersQuery, PartnersResponse } from './schemas.js';
import { listPartners } from './service.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

export const partnershipRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = runtime;

  app.get(
    '/v1/partners',
    {
      onRequest: app.requireBrand,
      preHandler: app.attributeListToPlatform,
      schema: {
        summary: "List the brand's partnerships",
        description:
          'Partnerships seen from the caller, newest first. status defaults to active; declined also returns ' +
          'partnerships removed later (they carry removed). totalRows counts every page.',
        tags: ['brand'],
        security: [{ apiKey: [] }, { bearer: [] }],
        querystring: PartnersQuery,
        headers: platformHeader,
        response: { 200: PartnersResponse, 400: errorRef, 401: errorRef, 500: errorRef },
      },
    },
    async (request) => listPartners(db, brandOf(request).companyId, request.query),
  );
};
