import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../http/errors.js';
import { SyncBrandsBody, SyncBrandsResponse } from './schemas.js';
import { syncBrands } from './service.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

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
        tags: ['platform'],
        security: [{ platformKey: [] }],
        body: SyncBrandsBody,
        response: { 200: SyncBrandsResponse, 400: errorRef, 401: errorRef },
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
