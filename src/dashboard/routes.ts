import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import { ApiError, notFound, unauthorized } from '../http/errors.js';
import { cookiePolicyFor, csrfTokenFor, csrfValid, currentUser, endSession, startSession } from '../accounts/sessions.js';
import { checkSignIn } from '../accounts/users.js';
import type { SessionUser } from '../accounts/dal.js';
import { brandKeyPrefix, keyEnvironmentFor } from '../auth/keys.js';
import { issueBrandKey, revokeKey } from '../support/service.js';
import { findCompany, listBrandKeys } from '../support/dal.js';
import { revokeGrant } from '../oauth/dal.js';
import { listPartners } from '../partnerships/service.js';
import { receiveOrder, sandboxOrder } from '../orders/service.js';
import { escapeHtml } from '../plugin/html.js';
import { dashboardBundle } from './bundle.js';
import * as dal from './dal.js';
import * as schemas from './schemas.js';
import * as service from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardUser: SessionUser | null;
  }
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const CSRF_HEADER = 'x-csrf-token';
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function userOf(request: FastifyRequest): SessionUser {
  if (!request.dashboardUser) throw new Error('route is missing the signed-in check');
  return request.dashboardUser;
}

/**
 * The brand dashboard: one page running the Preact app, and its JSON API under /dashboard/api,
 * signed in with the staff session cookie of src/accounts. Every write needs the CSRF token
 * (double submit, in a header) and a same-origin request; nothing here can be framed.
 */
export const dashboardRoutes: FastifyPluginAsync = async (plain) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, bus } = app.services;
  const ctx: service.DashboardContext = { db, bus, serviceEnv: config.serviceEnv };
  const support = { db, bus, serviceEnv: config.serviceEnv };
  const policy = cookiePolicyFor(config.baseUrl);
  const serviceOrigin = new URL(config.baseUrl).origin;
  await app.register(cookie);
  app.decorateRequest('dashboardUser', null);

  app.addHook('onSend', async (_request, reply) => {
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    if (!reply.getHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', "frame-ancestors 'none'");
    if (!reply.getHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
  });

  const checkCsrf = async (request: FastifyRequest) => {
    if (!csrfValid(request, request.headers[CSRF_HEADER], serviceOrigin)) {
      throw new ApiError(403, 'csrf_failed', `the ${CSRF_HEADER} header must carry the token from GET /dashboard/api/session, from this site`);
    }
  };
  const signedIn = async (request: FastifyRequest) => {
    const user = await currentUser(db, request);
    if (!user) throw unauthorized('sign in first');
    request.dashboardUser = user;
  };
  const read = { onRequest: signedIn };
  const write = { onRequest: [checkCsrf, signedIn] };
  const hide = { hide: true };

  app.get('/dashboard', { schema: hide }, async (_request, reply) => {
    const built = await dashboardBundle();
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
          `<title>Brand dashboard</title><link rel="stylesheet" href="/dashboard/assets/${escapeHtml(built.style)}"></head>` +
          `<body><div id="app"></div><script src="/dashboard/assets/${escapeHtml(built.script)}"></script></body></html>`,
      );
  });

  app.get<{ Params: { name: string } }>('/dashboard/assets/:name', { schema: hide }, async (request, reply) => {
    const found = (await dashboardBundle()).assets.get(request.params.name);
    if (!found) throw notFound(`no asset ${request.params.name}`);
    return reply.type(found.contentType).header('Cache-Control', IMMUTABLE).send(found.body);
  });

  // --- session ---

  app.get('/dashboard/api/session', { schema: hide }, async (request, reply) => {
    const user = await currentUser(db, request);
    return {
      csrfToken: csrfTokenFor(request, reply, policy),
      keyPrefix: brandKeyPrefix(keyEnvironmentFor(config.serviceEnv)),
      sandbox: config.serviceEnv !== 'prod',
      user: user ? { email: user.email, companyId: user.companyId, brandName: user.brandName } : null,
    };
  });

  app.post('/dashboard/api/sign-up', { onRequest: checkCsrf, schema: { ...hide, body: schemas.SignUpBody } }, async (request, reply) => {
    const created = await service.signUp(ctx, request.body);
    await startSession(db, reply, policy, created.userId);
    return reply.status(201).send(created);
  });

  app.post('/dashboard/api/sign-in', { onRequest: checkCsrf, schema: { ...hide, body: schemas.SignInBody } }, async (request, reply) => {
    const result = await checkSignIn(db, request.body.email, request.body.password, request.ip);
    if (result.outcome === 'rate_limited') {
      throw new ApiError(429, 'rate_limited', 'too many failed sign-ins; try again later', {}, { 'Retry-After': String(result.retryAfterSeconds) });
    }
    if (result.outcome === 'rejected') throw unauthorized('the email or password is not correct');
    await startSession(db, reply, policy, result.userId);
    return { signedIn: true };
  });

  app.post('/dashboard/api/sign-out', { onRequest: checkCsrf, schema: hide }, async (request, reply) => {
    await endSession(db, request, reply, policy);
    return { signedIn: false };
  });

  app.post('/dashboard/api/password-reset', { onRequest: checkCsrf, schema: { ...hide, body: schemas.ResetRequestBody } }, async (request, reply) =>
    reply.status(202).send(await service.requestPasswordReset(ctx, request.body.email)),
  );

  app.post('/dashboard/api/password-reset/confirm', { onRequest: checkCsrf, schema: { ...hide, body: schemas.ResetConfirmBody } }, async (request) => {
    await service.completePasswordReset(ctx, request.body.token, request.body.password);
    return { reset: true };
  });

  app.post('/dashboard/api/invitations', { ...write, schema: hide }, async (request, reply) =>
    reply.status(201).send(await service.createInvitation(ctx, userOf(request))),
  );

  // --- partnerships ---

  app.get('/dashboard/api/brands', { ...read, schema: { ...hide, querystring: schemas.SearchQuery } }, async (request) => ({
    data: await service.searchBrands(ctx, userOf(request).companyId, request.query.q),
  }));

  app.get('/dashboard/api/recommendations', { ...read, schema: hide }, async (request) => service.recommendationsWithIds(ctx, userOf(request).companyId));

  // The same function as GET /v1/partners, so the dashboard and the API cannot disagree.
  app.get('/dashboard/api/partners', { ...read, schema: { ...hide, querystring: schemas.PartnerStatusQuery } }, async (request) =>
    listPartners(db, userOf(request).companyId, { status: request.query.status ?? 'active', pageSize: 100 }),
  );

  app.post(
    '/dashboard/api/partners/:companyId/request',
    { ...write, schema: { ...hide, params: schemas.CompanyIdParams, body: schemas.RequestBody } },
    async (request, reply) => {
      await service.sendRequest(ctx, userOf(request).companyId, request.params.companyId, request.body.message?.trim() || null);
      return reply.status(201).send({ status: 'inviteSent' });
    },
  );

  app.post(
    '/dashboard/api/partners/:companyId/:action',
    { ...write, schema: { ...hide, params: schemas.PartnershipActionParams } },
    async (request) => {
      await service.changePartnership(ctx, userOf(request).companyId, request.params.companyId, request.params.action);
      return { done: request.params.action };
    },
  );

  // --- campaigns and the brand's offer ---

  app.get('/dashboard/api/campaigns', { ...read, schema: hide }, async (request) => ({ data: await service.listCampaigns(ctx, userOf(request).companyId) }));

  app.post('/dashboard/api/campaigns', { ...write, schema: { ...hide, body: schemas.CreateCampaignBody } }, async (request, reply) =>
    reply.status(201).send(await service.createCampaign(ctx, userOf(request).companyId, request.body)),
  );

  app.post(
    '/dashboard/api/campaigns/:id/:action',
    { ...write, schema: { ...hide, params: schemas.CampaignActionParams, body: schemas.CampaignActionBody } },
    async (request) => {
      await service.changeCampaign(ctx, userOf(request).companyId, request.params.id, request.params.action, request.body);
      return { done: request.params.action };
    },
  );

  app.get('/dashboard/api/offer', { ...read, schema: hide }, async (request) => ({ offer: await service.getOffer(ctx, userOf(request).companyId) }));

  app.post('/dashboard/api/offer', { ...write, schema: { ...hide, body: schemas.OfferBody } }, async (request) => {
    const company = await findCompany(db, userOf(request).companyId);
    return { offer: await service.saveOffer(ctx, { companyId: userOf(request).companyId, domain: company?.domain ?? null }, request.body) };
  });

  // --- integrations ---

  app.get('/dashboard/api/keys', { ...read, schema: hide }, async (request) => ({
    data: (await listBrandKeys(db, userOf(request).companyId)).filter((key) => key.revokedAt === null),
  }));

  app.post('/dashboard/api/keys', { ...write, schema: { ...hide, body: schemas.KeyBody } }, async (request, reply) => {
    const issued = await issueBrandKey(support, userOf(request).companyId, { name: request.body.name });
    return reply.status(201).send({ keyId: issued.keyId, name: issued.name, key: issued.key });
  });

  app.post('/dashboard/api/keys/:id/revoke', { ...write, schema: { ...hide, params: schemas.UuidParams } }, async (request) => {
    if (!(await dal.brandKeyBelongsTo(db, request.params.id, userOf(request).companyId))) throw notFound(`no key ${request.params.id}`);
    return revokeKey(support, 'brand', request.params.id);
  });

  app.get('/dashboard/api/apps', { ...read, schema: hide }, async (request) => ({
    data: (await dal.listAuthorizedApps(db, userOf(request).companyId)).map((grant) => ({
      grantId: grant.id,
      clientId: grant.client_id,
      name: grant.client_name,
      platform: grant.platform_name,
      scope: grant.scope,
      authorizedAt: grant.created_at.toISOString(),
    })),
  }));

  app.post('/dashboard/api/apps/:id/revoke', { ...write, schema: { ...hide, params: schemas.UuidParams } }, async (request) => {
    if (!(await dal.grantBelongsTo(db, request.params.id, userOf(request).companyId))) throw notFound(`no authorized app ${request.params.id}`);
    await revokeGrant(db, request.params.id, 'revoked by the brand in the dashboard');
    await bus.publish('credentials');
    return { revoked: true };
  });

  // --- performance ---

  app.get('/dashboard/api/performance', { ...read, schema: { ...hide, querystring: schemas.PerformanceQuery } }, async (request) =>
    service.performance(ctx, userOf(request).companyId, request.query),
  );

  app.get('/dashboard/api/performance.csv', { ...read, schema: { ...hide, querystring: schemas.RangeQuery } }, async (request, reply) => {
    const csv = await service.performanceCsv(ctx, userOf(request).companyId, request.query);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="performance-${request.query.from}-${request.query.to}.csv"`)
      .send(csv);
  });

  // --- the sandbox store's checkout, for trying attribution without a real commerce platform ---

  app.post('/dashboard/api/sandbox/orders', { ...write, schema: { ...hide, body: schemas.SandboxOrderBody } }, async (request, reply) => {
    if (config.serviceEnv === 'prod') throw notFound('the sandbox is not available on this host');
    const company = await findCompany(db, userOf(request).companyId);
    if (!company?.domain) throw new ApiError(409, 'conflict', 'your brand has no store domain');
    const order = sandboxOrder(company.domain, request.body, new Date());
    return reply.status(201).send(await receiveOrder({ db, commissionBasisPoints: config.orders.commissionBasisPoints }, order));
  });

};
