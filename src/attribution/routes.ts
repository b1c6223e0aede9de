import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest, notFound, serviceUnavailable } from '../http/errors.js';
import { browserAssets } from '../http/assets.js';
import { sendPage } from '../http/page.js';
import { securePages } from '../http/security-headers.js';
import { linkNotFoundPage } from './pages.js';
import { PlatformStats, PlatformStatsParams, PlatformStatsQuery, ReferralParams, UNKNOWN_PLATFORM_ID } from './schemas.js';
import { storeUrl } from './store-url.js';
import { emptyResponse, errorResponse, PUBLIC, RATE_LIMITED } from '../http/schemas.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

/** Referral redirects and platform totals. */
export const attributionRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { config, attribution, auth } = runtime;

  // The shopper's page (a redirect, or the notice when the link is broken) has the page security headers.
  await app.register(async (plainScope) => {
    const scope = plainScope.withTypeProvider<TypeBoxTypeProvider>();
    await securePages(scope, config.baseUrl);
    scope.get(
      '/r/:token',
      {
        schema: {
          summary: 'Follow a referral link',
          description:
            "Records one click credited to the platform that showed the offer and redirects (302) to the partner's store " +
            'with its discount code. An unknown or damaged token gets an HTML page with status 404.',
          operationId: 'followReferralLink',
          tags: ['offers'],
          security: PUBLIC,
          params: ReferralParams,
          response: {
            302: emptyResponse("The click was counted: on to the partner's store, its discount applied", {
              Location: { type: 'string', description: "The partner's store with its discount code, carrying the referral token (`ref`)" },
            }),
            404: {
              description: 'The token is unknown or damaged: a page telling the shopper so',
              content: { 'text/html': { schema: Type.String({ examples: ['<!doctype html><html lang="en">…</html>'] }) } },
            },
            429: RATE_LIMITED,
            503: errorResponse('The click could not be recorded; retry after Retry-After seconds', {
              error: 'service_unavailable',
              message: 'the click could not be recorded; retry shortly',
            }),
            default: errorResponse('Any other failure', {
              error: 'internal_error',
              message: 'the request could not be completed because of an error on our side',
            }),
          },
        },
      },
      async (request, reply) => {
        const link = await attribution.resolveToken(request.params.token);
        const sandbox = config.sandboxStorefronts ? { base: config.baseUrl } : null;
        const destination = link && storeUrl(link.partnerDomain, link.discountCode, request.params.token, sandbox);
        if (!link || !destination) {
          return sendPage(reply, linkNotFoundPage(await browserAssets()), { status: 404 });
        }
        // Link checkers send HEAD; only a shopper's GET is a click.
        if (request.method === 'GET') {
          try {
            await attribution.recordClick(link, new Date());
          } catch (error) {
            request.log.error({ err: error }, 'could not record a referral click');
            throw serviceUnavailable('the click could not be recorded; retry shortly');
          }
        }
        return reply.header('Cache-Control', 'no-store').redirect(destination, 302);
      },
    );
  });

  app.get(
    '/admin/platforms/:platformId/stats',
    {
      schema: {
        summary: 'Views, clicks, orders, new customers, revenue and commission credited to a platform',
        description:
          'All time, or the UTC days from `from` to `to` (inclusive, either end optional). The platform `unknown` gives the ' +
          "orders matched by a partner's discount code alone, which credit no platform (no views or clicks).",
        tags: ['admin'],
        params: PlatformStatsParams,
        querystring: PlatformStatsQuery,
        response: { 200: PlatformStats, 400: errorRef, 401: errorRef, 404: errorRef },
      },
    },
    async (request) => {
      const platformId = request.params.platformId === UNKNOWN_PLATFORM_ID ? null : request.params.platformId.toLowerCase();
      const { from, to } = request.query;
      if (from !== undefined && to !== undefined && to < from) throw badRequest('to must not be before from');
      if (platformId !== null && !(await auth.findPlatform(platformId))) throw notFound(`no platform ${platformId}`);
      return attribution.platformTotals(platformId, { from, to });
    },
  );
};
