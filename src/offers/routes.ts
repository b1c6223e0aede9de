import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { brandOf } from '../auth/plugin.js';
import { ApiError, serviceUnavailable } from '../http/errors.js';
import { platformForOffers } from './platform.js';
import { OFFER_TYPES, OffersHeaders, OffersQuery, OffersResponse } from './schemas.js';
import { BRAND_SECURITY, BRAND_UNAUTHORIZED, described, errorResponse } from '../http/schemas.js';
import type { Runtime } from '../composition.js';

export const offersRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { auth, config, attribution, offers: cache } = runtime;

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
        operationId: 'listOffers',
        tags: ['offers'],
        security: BRAND_SECURITY,
        querystring: OffersQuery,
        headers: OffersHeaders,
        response: {
          200: described('The offers to show now, best first; each counted as one view for the platform', OffersResponse),
          400: errorResponse(
            'invalid_offer_type (type missing or unsupported; `allowed` lists the values), platform_required, invalid_platform, ' +
              'platform_mismatch (X-Platform-Id differs from the platform of the token) or unsupported_platform',
            { error: 'invalid_offer_type', message: 'query parameter type must be one of: post-purchase', allowed: [...OFFER_TYPES] },
          ),
          401: BRAND_UNAUTHORIZED,
          429: errorResponse(`More than ${config.offersRateLimitPerMinute} offer requests this minute; Retry-After says when to retry`, {
            error: 'rate_limited',
            message: `rate limit of ${config.offersRateLimitPerMinute} requests per minute exceeded; retry in 12 s`,
          }),
          503: errorResponse('The views could not be counted or the database could not be reached; retry after Retry-After seconds', {
            error: 'service_unavailable',
            message: 'the offers could not be counted as shown; retry shortly',
          }),
        },
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
