import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import { ApiError, unauthorized } from '../http/errors.js';
import { isFromThisMachine } from '../http/client-address.js';
import { DEFAULT_PAGE_SIZE } from '../http/paging.js';
import {
  actsForBrand,
  checkClaim,
  checkSignIn,
  completePasswordReset,
  createInvitation,
  currentAccount,
  currentClaim,
  endSession,
  finishSignUp,
  joinWithInvitation,
  requestPasswordReset,
  DEVICE_COOKIE,
  setDeviceCookie,
  signInWaitMessage,
  signUp,
  startClaim,
  startSession,
  type SessionAccount,
  type SessionUser,
} from '../accounts/service.js';
import { cookiePolicyFor, csrfTokenFor, csrfValid } from '../shared/cookies.js';
import { brandKeyPrefix, keyEnvironmentFor } from '../shared/keys.js';
import { issueBrandKey, listBrandKeys, revokeBrandKeyOf } from '../auth/service.js';
import { changeCampaign } from '../campaigns/service.js';
import { getCompany } from '../companies/service.js';
import { attributionSettings, saveAttributionSettings } from '../orders/service.js';
import { deleteBrandApp, listAuthorizedApps, listBrandApps, registerBrandApp, revokeAuthorizedApp } from '../oauth/service.js';
import { getOffer, saveOffer, setCampaignOffer, setupProposalFor } from '../offers/service.js';
import { changePartnership, partnersWithCurrentState, sendRequest } from '../partnerships/service.js';
import { browserAssets } from '../http/assets.js';
import { ANY_IMAGE, pagePolicy, SELF } from '../http/csp.js';
import { sendPage } from '../http/page.js';
import { securePages } from '../http/security-headers.js';
import { dashboardPage } from './page.js';
import { demoSignInHint } from '../demo/startup.js';
import * as schemas from './schemas.js';
import { monthlyStatement, statementCsv } from '../orders/statements.js';
import { Statement, StatementQuery } from '../orders/schemas.js';
import * as service from './service.js';
import type { Runtime } from '../composition.js';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardUser: SessionUser | null;
    dashboardAccount: SessionAccount | null;
  }
}

const CSRF_HEADER = 'x-csrf-token';
/** The app's own script, offer images from anywhere, calls to its API. */
const DASHBOARD_POLICY = pagePolicy({ 'script-src': SELF, 'img-src': ANY_IMAGE, 'connect-src': SELF });

function userOf(request: FastifyRequest): SessionUser {
  if (!request.dashboardUser) throw new Error('route is missing the signed-in check');
  return request.dashboardUser;
}

function accountOf(request: FastifyRequest): SessionAccount {
  if (!request.dashboardAccount) throw new Error('route is missing the account check');
  return request.dashboardAccount;
}

/**
 * The brand dashboard: one page running the Preact app, and its JSON API under /dashboard/api,
 * signed in with the staff session cookie of src/accounts. Every write needs the CSRF token
 * (double submit, in a header) and a same-origin request; nothing here can be framed.
 */
export const dashboardRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, bus } = runtime;
  const adapter = runtime.commerce.primary;
  const ctx: service.DashboardContext = { db, bus, serviceEnv: config.serviceEnv, adapter };
  const { mailer } = runtime;
  const accounts = { db, bus, adapter, mailer, baseUrl: config.baseUrl, log: app.log };
  const resets = { db, mailer, baseUrl: config.baseUrl, log: app.log };
  const policy = cookiePolicyFor(config.baseUrl);
  const serviceOrigin = new URL(config.baseUrl).origin;
  await app.register(cookie);
  await securePages(app, config.baseUrl);
  app.decorateRequest('dashboardUser', null);
  app.decorateRequest('dashboardAccount', null);

  // Answers about a signed-in brand are never cached.
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.getHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
  });

  const checkCsrf = async (request: FastifyRequest) => {
    if (!csrfValid(request, request.headers[CSRF_HEADER], serviceOrigin)) {
      throw new ApiError(
        403,
        'csrf_failed',
        `the ${CSRF_HEADER} header must carry the token from GET /dashboard/api/session, from this site`,
      );
    }
  };
  const signedInAccount = async (request: FastifyRequest) => {
    const account = await currentAccount(db, request);
    if (!account) throw unauthorized('sign in first');
    request.dashboardAccount = account;
  };
  // An account acts for a brand only once the store's owner confirmed its claim.
  const signedIn = async (request: FastifyRequest) => {
    await signedInAccount(request);
    const account = accountOf(request);
    if (!actsForBrand(account))
      throw new ApiError(
        403,
        'brand_unverified',
        'your account does not act for a brand yet: the store owner has to confirm your claim first',
      );
    request.dashboardUser = account;
  };
  const read = { onRequest: signedIn };
  const write = { onRequest: [checkCsrf, signedIn] };
  const accountWrite = { onRequest: [checkCsrf, signedInAccount] };
  const hide = { hide: true };

  app.get('/dashboard', { schema: hide }, async (_request, reply) =>
    sendPage(reply, dashboardPage(await browserAssets()), { policy: DASHBOARD_POLICY }),
  );

  // --- session ---

  const demoSignIn = demoSignInHint(db, config.serviceEnv);

  app.get('/dashboard/api/session', { schema: { ...hide, response: { 200: schemas.Session } } }, async (request, reply) => {
    const account = await currentAccount(db, request);
    return {
      csrfToken: csrfTokenFor(request, reply, policy),
      keyPrefix: brandKeyPrefix(keyEnvironmentFor(config.serviceEnv)),
      sandbox: config.serviceEnv !== 'prod',
      // Only where the mailbox would open: on the machine running the service.
      devMailbox: mailer?.kind === 'dev-mailbox' && isFromThisMachine(request),
      demoSignIn: account ? null : await demoSignIn(),
      user: account
        ? { email: account.email, companyId: account.companyId, brandName: account.brandName, domain: account.brandDomain }
        : null,
      claim: account ? await currentClaim(accounts, account) : null,
    };
  });

  // Every sign-up that passes its checks gets the same 202, account or not: the link mailed to a
  // free address makes the account, with a POST from the page it opens (issue 23) carrying the
  // password chosen there, by whoever proved the address (issue 44).
  app.post(
    '/dashboard/api/sign-up',
    { onRequest: checkCsrf, schema: { ...hide, body: schemas.SignUpBody, response: { 202: schemas.SignUpSent } } },
    async (request, reply) => reply.status(202).send(await signUp(accounts, request.body)),
  );

  app.post(
    '/dashboard/api/sign-up/finish',
    { onRequest: checkCsrf, schema: { ...hide, body: schemas.FinishSignUpBody, response: { 201: schemas.SignedUp } } },
    async (request, reply) => {
      const created = await finishSignUp(accounts, request.body);
      await startSession(db, reply, policy, created.userId);
      return reply.status(201).send({ companyId: created.companyId, claim: created.claim });
    },
  );

  // --- proof of store ownership, for an account without a brand ---

  app.post('/dashboard/api/claim/check', { ...accountWrite, schema: { ...hide, response: { 200: schemas.ClaimCheck } } }, async (request) =>
    checkClaim(accounts, accountOf(request)),
  );

  app.post(
    '/dashboard/api/claim',
    { ...accountWrite, schema: { ...hide, body: schemas.ClaimBody, response: { 201: schemas.ClaimStarted } } },
    async (request, reply) => reply.status(201).send({ claim: await startClaim(accounts, accountOf(request), request.body.brand) }),
  );

  app.post(
    '/dashboard/api/join',
    { ...accountWrite, schema: { ...hide, body: schemas.JoinBody, response: { 200: schemas.Joined } } },
    async (request) => ({
      companyId: await joinWithInvitation(accounts, accountOf(request), request.body.invitationCode),
    }),
  );

  app.post(
    '/dashboard/api/sign-in',
    { onRequest: checkCsrf, schema: { ...hide, body: schemas.SignInBody, response: { 200: schemas.SignedIn } } },
    async (request, reply) => {
      const result = await checkSignIn(
        db,
        request.body.email,
        request.body.password,
        request.ip,
        new Date(),
        request.cookies[DEVICE_COOKIE],
      );
      if (result.outcome === 'rate_limited') {
        throw new ApiError(429, 'rate_limited', signInWaitMessage(result), {}, { 'Retry-After': String(result.retryAfterSeconds) });
      }
      if (result.outcome === 'rejected') throw unauthorized('the email or password is not correct');
      await startSession(db, reply, policy, result.userId);
      setDeviceCookie(reply, policy, result.deviceCookie);
      return { signedIn: true };
    },
  );

  app.post(
    '/dashboard/api/sign-out',
    { onRequest: checkCsrf, schema: { ...hide, response: { 200: schemas.SignedIn } } },
    async (request, reply) => {
      await endSession(db, request, reply, policy);
      return { signedIn: false };
    },
  );

  app.post(
    '/dashboard/api/password-reset',
    { onRequest: checkCsrf, schema: { ...hide, body: schemas.ResetRequestBody, response: { 202: schemas.ResetRequested } } },
    async (request, reply) => {
      await requestPasswordReset(resets, request.body.email, request.ip);
      return reply.status(202).send({ requested: true });
    },
  );

  app.post(
    '/dashboard/api/password-reset/confirm',
    { onRequest: checkCsrf, schema: { ...hide, body: schemas.ResetConfirmBody, response: { 200: schemas.ResetDone } } },
    async (request) => {
      await completePasswordReset(resets, request.body.token, request.body.password);
      return { reset: true };
    },
  );

  app.post('/dashboard/api/invitations', { ...write, schema: { ...hide, response: { 201: schemas.Invitation } } }, async (request, reply) =>
    reply.status(201).send(await createInvitation(db, userOf(request))),
  );

  // --- partnerships ---

  app.get(
    '/dashboard/api/brands',
    { ...read, schema: { ...hide, querystring: schemas.SearchQuery, response: { 200: schemas.BrandSearchResults } } },
    async (request) => ({
      data: await service.searchBrands(ctx, userOf(request).companyId, request.query.q),
    }),
  );

  app.get('/dashboard/api/recommendations', { ...read, schema: { ...hide, response: { 200: schemas.Recommendations } } }, async (request) =>
    service.recommendationsWithIds(ctx, userOf(request).companyId),
  );

  // The same function as GET /v1/partners, so the dashboard and the API cannot disagree.
  app.get(
    '/dashboard/api/partners',
    { ...read, schema: { ...hide, querystring: schemas.PartnerListQuery, response: { 200: schemas.PartnerPage } } },
    async (request) =>
      partnersWithCurrentState(ctx, userOf(request).companyId, {
        status: request.query.status ?? 'active',
        pageIndex: request.query.pageIndex ?? 1,
        pageSize: request.query.pageSize ?? DEFAULT_PAGE_SIZE,
      }),
  );

  app.post(
    '/dashboard/api/partners/:companyId/request',
    { ...write, schema: { ...hide, params: schemas.CompanyIdParams, body: schemas.RequestBody, response: { 201: schemas.RequestSent } } },
    async (request, reply) => {
      await sendRequest(ctx, userOf(request).companyId, request.params.companyId, request.body.message?.trim() || null);
      return reply.status(201).send({ status: 'inviteSent' });
    },
  );

  app.post(
    '/dashboard/api/partners/:companyId/:action',
    { ...write, schema: { ...hide, params: schemas.PartnershipActionParams, response: { 200: schemas.PartnershipChanged } } },
    async (request) => {
      await changePartnership(ctx, userOf(request).companyId, request.params.companyId, request.params.action);
      return { done: request.params.action };
    },
  );

  // --- campaigns and the brand's offer ---

  app.get('/dashboard/api/campaigns', { ...read, schema: { ...hide, response: { 200: schemas.Collabs } } }, async (request) => ({
    data: await service.listCollabs(ctx, userOf(request).companyId),
  }));

  app.post(
    '/dashboard/api/campaigns',
    { ...write, schema: { ...hide, body: schemas.CreateCampaignBody, response: { 201: schemas.CollabCreated } } },
    async (request, reply) => reply.status(201).send(await service.createCollab(ctx, userOf(request).companyId, request.body)),
  );

  app.post(
    '/dashboard/api/campaigns/:id/offer',
    { ...write, schema: { ...hide, params: schemas.CampaignParams, body: schemas.OfferBody, response: { 200: schemas.CollabOfferSaved } } },
    async (request) => {
      await setCampaignOffer(ctx, userOf(request).companyId, request.params.id, request.body);
      return { saved: true };
    },
  );

  app.post(
    '/dashboard/api/campaigns/:id/offer/reset',
    { ...write, schema: { ...hide, params: schemas.CampaignParams, response: { 200: schemas.CollabOfferSaved } } },
    async (request) => {
      await setCampaignOffer(ctx, userOf(request).companyId, request.params.id, null);
      return { saved: true };
    },
  );

  app.post(
    '/dashboard/api/campaigns/:id/:action',
    {
      ...write,
      schema: { ...hide, params: schemas.CampaignActionParams, body: schemas.CampaignActionBody, response: { 200: schemas.CollabChanged } },
    },
    async (request) => {
      await changeCampaign(ctx, userOf(request).companyId, request.params.id, request.params.action, request.body);
      return { done: request.params.action };
    },
  );

  const ownOffer = async (companyId: string) => {
    const [offer, proposal] = await Promise.all([getOffer(ctx, companyId), setupProposalFor(ctx, companyId)]);
    return { offer, setupProposal: proposal && { subtitle: proposal.subtitle, imageUrl: proposal.imageUrl } };
  };

  app.get('/dashboard/api/offer', { ...read, schema: { ...hide, response: { 200: schemas.OwnOffer } } }, async (request) =>
    ownOffer(userOf(request).companyId),
  );

  app.post(
    '/dashboard/api/offer',
    { ...write, schema: { ...hide, body: schemas.OfferBody, response: { 200: schemas.OwnOffer } } },
    async (request) => {
      const company = await getCompany(ctx, userOf(request).companyId);
      await saveOffer(ctx, { companyId: company.companyId, domain: company.domain }, request.body);
      return ownOffer(company.companyId);
    },
  );

  app.get('/dashboard/api/offer/links', { ...read, schema: { ...hide, response: { 200: schemas.ReferralLinks } } }, async (request) => ({
    data: await service.referralLinks(ctx, userOf(request).companyId, {
      referralUrl: (token) => runtime.attribution.referralUrl(token),
      sandboxBase: config.sandboxStorefronts ? config.baseUrl : null,
    }),
  }));

  // --- integrations ---

  // Every key of the brand, whoever issued it and revoked ones too: a key outlives the session and the person that made it.
  app.get('/dashboard/api/keys', { ...read, schema: { ...hide, response: { 200: schemas.BrandKeys } } }, async (request) => ({
    data: await listBrandKeys(ctx, userOf(request).companyId),
  }));

  app.post(
    '/dashboard/api/keys',
    { ...write, schema: { ...hide, body: schemas.KeyBody, response: { 201: schemas.IssuedKey } } },
    async (request, reply) => {
      const user = userOf(request);
      const issued = await issueBrandKey(ctx, user.companyId, { name: request.body.name, byUserId: user.userId });
      return reply.status(201).send({ keyId: issued.keyId, name: issued.name, key: issued.key });
    },
  );

  app.post(
    '/dashboard/api/keys/:id/revoke',
    { ...write, schema: { ...hide, params: schemas.UuidParams, response: { 200: schemas.RevokedKey } } },
    async (request) => {
      return revokeBrandKeyOf(ctx, userOf(request).companyId, request.params.id);
    },
  );

  app.get('/dashboard/api/apps', { ...read, schema: { ...hide, response: { 200: schemas.AuthorizedApps } } }, async (request) => ({
    data: await listAuthorizedApps(ctx, userOf(request).companyId),
  }));

  app.post(
    '/dashboard/api/apps/:id/revoke',
    { ...write, schema: { ...hide, params: schemas.UuidParams, response: { 200: schemas.AppRevoked } } },
    async (request) => {
      await revokeAuthorizedApp(ctx, userOf(request).companyId, request.params.id);
      return { revoked: true };
    },
  );

  app.get('/dashboard/api/oauth-apps', { ...read, schema: { ...hide, response: { 200: schemas.RegisteredApps } } }, async (request) => ({
    data: await listBrandApps(ctx, userOf(request).companyId),
  }));

  app.post(
    '/dashboard/api/oauth-apps',
    { ...write, schema: { ...hide, body: schemas.RegisterAppBody, response: { 201: schemas.AppRegistered } } },
    async (request, reply) => reply.status(201).send(await registerBrandApp(ctx, userOf(request).companyId, request.body)),
  );

  app.post(
    '/dashboard/api/oauth-apps/:clientId/delete',
    { ...write, schema: { ...hide, params: schemas.ClientIdParams, response: { 200: schemas.AppDeleted } } },
    async (request) => {
      await deleteBrandApp(ctx, userOf(request).companyId, request.params.clientId);
      return { deleted: true };
    },
  );

  // --- performance ---

  app.get(
    '/dashboard/api/performance',
    { ...read, schema: { ...hide, querystring: schemas.PerformanceQuery, response: { 200: schemas.Performance } } },
    async (request) => service.performance(ctx, userOf(request).companyId, request.query),
  );

  app.get('/dashboard/api/performance.csv', { ...read, schema: { ...hide, querystring: schemas.RangeQuery } }, async (request, reply) => {
    const csv = await service.performanceCsv(ctx, userOf(request).companyId, request.query);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="performance-${request.query.from}-${request.query.to}.csv"`)
      .send(csv);
  });

  // The two roles apart: partners' offers on the brand's pages (shown), its offer on partners' pages (received).
  for (const side of ['shown', 'received'] as const) {
    app.get(
      `/dashboard/api/performance/${side}`,
      { ...read, schema: { ...hide, querystring: schemas.PerformanceQuery, response: { 200: schemas.SidePerformance } } },
      async (request) => service.sidePerformance(ctx, userOf(request).companyId, side, request.query),
    );
    app.get(
      `/dashboard/api/performance/${side}.csv`,
      { ...read, schema: { ...hide, querystring: schemas.RangeQuery } },
      async (request, reply) => {
        const csv = await service.sidePerformanceCsv(ctx, userOf(request).companyId, side, request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="performance-${side}-${request.query.from}-${request.query.to}.csv"`)
          .send(csv);
      },
    );
  }

  app.get(
    '/dashboard/api/attribution-settings',
    { ...read, schema: { ...hide, response: { 200: schemas.AttributionSettings } } },
    async (request) => attributionSettings(ctx, userOf(request).companyId),
  );

  app.post(
    '/dashboard/api/attribution-settings',
    { ...write, schema: { ...hide, body: schemas.AttributionSettings, response: { 200: schemas.AttributionSettings } } },
    async (request) => saveAttributionSettings(ctx, userOf(request).companyId, request.body),
  );

  // --- statements (the brand's own: what it owes for the orders it received) ---

  app.get(
    '/dashboard/api/statement',
    { ...read, schema: { ...hide, querystring: StatementQuery, response: { 200: Statement } } },
    async (request) => monthlyStatement(ctx, userOf(request).companyId, request.query.month),
  );

  app.get(
    '/dashboard/api/billing-approval',
    { ...read, schema: { ...hide, response: { 200: schemas.BillingApproval } } },
    async (request) => service.billingApproval({ adapter }, userOf(request).brandDomain),
  );

  app.get('/dashboard/api/statement.csv', { ...read, schema: { ...hide, querystring: StatementQuery } }, async (request, reply) => {
    const csv = statementCsv(await monthlyStatement(ctx, userOf(request).companyId, request.query.month));
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="statement-${request.query.month}.csv"`)
      .send(csv);
  });
};
