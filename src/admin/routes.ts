import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../http/errors.js';
import { issueBrandKey, issuePlatformKey, listPlatformCompanies, revokeKey } from '../auth/service.js';
import { createCompany, updateCompany } from '../companies/service.js';
import { createPlatform, listPlatformBrands, listPlatforms, setPlatformActive, updatePlatform } from '../platforms/service.js';
import type { ServiceContext } from '../service-context.js';
import { companyWithKeys, platformWithKeys } from './service.js';
import { monthlyStatement, postAdjustment, statementCsv } from '../orders/statements.js';
import { AdjustmentBody, Statement, StatementEntry, StatementQuery } from '../orders/schemas.js';
import {
  CompanyDetail,
  CreatePlatformBody,
  IssueBrandKeyBody,
  IssuedBrandKey,
  IssuedPlatformKey,
  IssuePlatformKeyBody,
  KeyIdParams,
  Platform,
  PlatformBrandList,
  PlatformBrandsQuery,
  PlatformCompanyList,
  PlatformDetail,
  PlatformIdParams,
  PlatformList,
  RevokedKey,
  UpdatePlatformBody,
} from './schemas.js';
import { Company, CompanyIdParams, CreateCompanyBody, UpdateCompanyBody } from '../companies/schemas.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');
const errors = { 400: errorRef, 401: errorRef, 404: errorRef };

/**
 * The support team's API under /admin. Bearer ADMIN_TOKEN is checked, and the routes hidden from
 * the public API reference, for every /admin route by src/admin/admin-auth.ts;
 * docs/support.md documents them.
 */
export const adminRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const ctx: ServiceContext = {
    db: runtime.db,
    bus: runtime.bus,
    serviceEnv: runtime.config.serviceEnv,
  };
  const meta = { tags: ['admin'] };
  // Issuing a key needs no options, so a bare POST without a body must validate as {}.
  const emptyBodyAsObject = async (request: { body: unknown }) => {
    request.body ??= {};
  };

  app.get('/admin/platforms', { schema: { ...meta, response: { 200: PlatformList, ...errors } } }, async () => listPlatforms(ctx));

  app.post(
    '/admin/platforms',
    { schema: { ...meta, body: CreatePlatformBody, response: { 201: Platform, 409: errorRef, ...errors } } },
    async (request, reply) => reply.status(201).send(await createPlatform(ctx, request.body)),
  );

  app.get(
    '/admin/platforms/:platformId',
    { schema: { ...meta, params: PlatformIdParams, response: { 200: PlatformDetail, ...errors } } },
    async (request) => platformWithKeys(ctx, request.params.platformId),
  );

  app.patch(
    '/admin/platforms/:platformId',
    { schema: { ...meta, params: PlatformIdParams, body: UpdatePlatformBody, response: { 200: Platform, ...errors } } },
    async (request) => updatePlatform(ctx, request.params.platformId, request.body),
  );

  for (const [action, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.post(
      `/admin/platforms/:platformId/${action}`,
      { schema: { ...meta, params: PlatformIdParams, response: { 200: Platform, ...errors } } },
      async (request) => setPlatformActive(ctx, request.params.platformId, active),
    );
  }

  app.post(
    '/admin/platforms/:platformId/keys',
    {
      preValidation: emptyBodyAsObject,
      schema: { ...meta, params: PlatformIdParams, body: IssuePlatformKeyBody, response: { 201: IssuedPlatformKey, ...errors } },
    },
    async (request, reply) => {
      const expiresAt = request.body.expiresAt ? new Date(request.body.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw badRequest('expiresAt must be in the future');
      return reply.status(201).send(await issuePlatformKey(ctx, request.params.platformId, { expiresAt }));
    },
  );

  app.post(
    '/admin/platform-keys/:keyId/revoke',
    { schema: { ...meta, params: KeyIdParams, response: { 200: RevokedKey, ...errors } } },
    async (request) => revokeKey(ctx, 'platform', request.params.keyId),
  );

  app.get(
    '/admin/platforms/:platformId/brands',
    { schema: { ...meta, params: PlatformIdParams, querystring: PlatformBrandsQuery, response: { 200: PlatformBrandList, ...errors } } },
    async (request) => listPlatformBrands(ctx, request.params.platformId, request.query.domain),
  );

  app.get(
    '/admin/platforms/:platformId/companies',
    { schema: { ...meta, params: PlatformIdParams, response: { 200: PlatformCompanyList, ...errors } } },
    async (request) => listPlatformCompanies(ctx, request.params.platformId),
  );

  app.post(
    '/admin/companies',
    { schema: { ...meta, body: CreateCompanyBody, response: { 201: Company, 409: errorRef, ...errors } } },
    async (request, reply) => reply.status(201).send(await createCompany(ctx, request.body)),
  );

  app.get(
    '/admin/companies/:companyId',
    { schema: { ...meta, params: CompanyIdParams, response: { 200: CompanyDetail, ...errors } } },
    async (request) => companyWithKeys(ctx, request.params.companyId),
  );

  app.patch(
    '/admin/companies/:companyId',
    {
      schema: { ...meta, params: CompanyIdParams, body: UpdateCompanyBody, response: { 200: Company, 409: errorRef, ...errors } },
    },
    async (request) => updateCompany(ctx, request.params.companyId, request.body),
  );

  app.post(
    '/admin/companies/:companyId/keys',
    {
      preValidation: emptyBodyAsObject,
      schema: { ...meta, params: CompanyIdParams, body: IssueBrandKeyBody, response: { 201: IssuedBrandKey, ...errors } },
    },
    async (request, reply) => reply.status(201).send(await issueBrandKey(ctx, request.params.companyId, { name: request.body.name })),
  );

  app.get(
    '/admin/companies/:companyId/statement',
    {
      schema: {
        ...meta,
        summary: "A brand's monthly statement: commission owed, reversals and net per currency, with every ledger entry",
        params: CompanyIdParams,
        querystring: StatementQuery,
        response: { 200: Statement, ...errors },
      },
    },
    async (request) => monthlyStatement(ctx, request.params.companyId, request.query.month),
  );

  app.get(
    '/admin/companies/:companyId/statement.csv',
    { schema: { ...meta, summary: 'The monthly statement as CSV', params: CompanyIdParams, querystring: StatementQuery } },
    async (request, reply) => {
      const csv = statementCsv(await monthlyStatement(ctx, request.params.companyId, request.query.month));
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="statement-${request.params.companyId}-${request.query.month}.csv"`)
        .send(csv);
    },
  );

  app.post(
    '/admin/companies/:companyId/adjustments',
    {
      schema: {
        ...meta,
        summary: "Post support's manual adjustment to a brand's ledger (shown on its next statement)",
        description: 'Append-only like every ledger entry: a mistake is corrected by another adjustment of the opposite sign.',
        params: CompanyIdParams,
        body: AdjustmentBody,
        response: { 201: StatementEntry, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await postAdjustment(ctx, request.params.companyId, request.body)),
  );

  app.post(
    '/admin/brand-keys/:keyId/revoke',
    { schema: { ...meta, params: KeyIdParams, response: { 200: RevokedKey, ...errors } } },
    async (request) => revokeKey(ctx, 'brand', request.params.keyId),
  );
};
