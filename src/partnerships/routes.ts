import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { platformHeader } from '../http/paging.js';
import {
  BRAND_SECURITY,
  BRAND_UNAUTHORIZED,
  DATABASE_UNAVAILABLE,
  described,
  errorResponse,
  LIST_NOT_LOADED,
  RATE_LIMITED,
} from '../http/schemas.js';
import { PartnersQuery, PartnersResponse } from './schemas.js';
import { listPartners } from './service.js';
import type { Runtime } from '../composition.js';

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
        operationId: 'listPartners',
        tags: ['brand'],
        security: BRAND_SECURITY,
        querystring: PartnersQuery,
        headers: platformHeader,
        response: {
          200: described('One page of the partnerships with this status', PartnersResponse),
          400: errorResponse('Unsupported status, pageIndex or pageSize out of range, or X-Platform-Id not an active platform', {
            error: 'invalid_request',
            message: 'pageSize must be <= 100',
          }),
          401: BRAND_UNAUTHORIZED,
          429: RATE_LIMITED,
          500: LIST_NOT_LOADED,
          503: DATABASE_UNAVAILABLE,
        },
      },
    },
    async (request) => listPartners(db, brandOf(request).companyId, request.query),
  );
};
