import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { ApiError, serviceUnavailable } from '../http/errors.js';
import { OffersCache } from './cache.js';
import { loadOfferSet } from './offer-set.js';
import { platformForOffers } from './platform.js';
import { OFFER_TYPES, OffersHeaders, OffersQuery, OffersResponse } from './schemas.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

export const offersRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, auth, bus, config, attribution } = runtime;
  const cache = new OffersCache((brandId, platformId, now) => loadOfferSet(db, attribution, brandId, platformId, now), bus);

  app.get(
    '/v1/campaigns/offers',
    {
      onRequest: app.requireBrand,
      config: {
        rateLimit: { max: config.offersRateLimitPerMinute },
        validationError: () =>
          new ApiError(400, 'invalid_offer_type', `query parameter type must be one of: ${OFFER_TYPES.join(', ')}`, {
            allowed: [...OFFER_TYPES],
          }),
      },
      schema: {
        summary: 'Partner offers to show to shoppers',
        description:
          "The live offers of the brand's partners in its active campaigns, best first, at most 6. " +
          'Each offer returned counts as one view for the platform, so request offers only when about to show them. ' +
          `Rate limit: ${config.offersRateLimitPerMinute} requests per minute per brand.`,
        tags: ['offers'],
        security: [{ apiKey: [] }, { bearer: [] }],
        querystring: OffersQuery,
        headers: OffersHeaders,
        response: { 200: OffersResponse, 400: errorRef, 401: errorRef, 429: errorRef, 503: errorRef },
      },
    },
    async (request, reply) => {
      const brand = brandOf(request);
      const platform = await platformForOffers(auth, request.headers, brand, request.query.type);
      const set = await cache.get(brand.companyId, platform.id);
      // HEAD sends no body, so it shows no offer: only GET counts views (as only GET of /r counts clicks).
      if (set.views.length > 0 && request.method === 'GET') {
        try {
          await attribution.recordViews(set.views, new Date());
        } catch (error) {
          request.log.error({ err: error }, 'could not record offer views');
          throw serviceUnavailable('the offers could not be counted as shown; retry shortly');
        }
      }
      return reply.type('application/json; charset=utf-8').send(set.body);
    },
  );
};
