import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../http/errors.js';
import { SyncBrandsBody, SyncBrandsResponse } from './schemas.js';
import { syncBrands } from './service.js';
import { DATABASE_UNAVAILABLE, described, errorResponse, RATE_LIMITED } from '../http/schemas.js';
import type { Runtime } from '../composition.js';

export const platformRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = runtime;

  app.post(
    '/v1/platform/brands',
    {
      onRequest: app.requirePlatformKey,
      preValidation: async (request) => {
        if (request.headers['x-platform-id'] !== undefined) {
          throw badRequest('X-Platform-Id must not be sent: the platform key selects the platform');
        }
        const contentType = request.headers['content-type'] ?? '';
        if (!/^application\/json\s*(;|$)/i.test(contentType)) {
          throw badRequest('Content-Type must be application/json');
        }
      },
      schema: {
        summary: 'Upsert the brands that use this platform',
        description:
          'Upserts by normalized domain for the platform of the key; brands not in the request are unchanged. ' +
          'Send status closed to stop a brand. At most 1000 brands and 1 MB per request.',
        operationId: 'syncPlatformBrands',
        tags: ['platform'],
        security: [{ platformKey: [] }],
        body: SyncBrandsBody,
        response: {
          200: described('The brands in the request were upserted (counts of this request, not a catalog)', SyncBrandsResponse),
          400: errorResponse(
            'More than 1000 brands, a body over 1 MB, malformed JSON, a missing domain, a bad status, a name or normalized domain ' +
              "over 100 characters, X-Platform-Id sent, or a platformId in the body other than the key's",
            { error: 'invalid_request', message: 'brands must have at most 1000 items' },
          ),
          401: errorResponse('The platform key is missing, unknown, revoked or expired, or a brand key or OAuth token was sent', {
            error: 'unauthorized',
            message: 'invalid platform key: unknown or revoked',
          }),
          429: RATE_LIMITED,
          503: DATABASE_UNAVAILABLE,
        },
      },
    },
    async (request) => {
      const platformId = request.platformKey!.platformId;
      const { brands, platformId: bodyPlatformId } = request.body;
      if (bodyPlatformId !== undefined && bodyPlatformId.trim().toLowerCase() !== platformId) {
        throw badRequest('platformId in the body does not match the platform of the key');
      }
      const counts = await syncBrands({ db }, platformId, brands);
      return { received: brands.length, ...counts };
    },
  );
};
