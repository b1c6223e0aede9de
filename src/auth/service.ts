import { isUuid, type ServiceEnv } from '../config.js';
import { badRequest, notFound } from '../http/errors.js';
import { companyExists } from '../companies/service.js';
import { requirePlatform } from '../platforms/service.js';
import type { ServiceContext } from '../service-context.js';
import * as dal from './dal.js';
import {
  brandKeyPrefix,
  checkKeyShape,
  generateBrandKey,
  generatePlatformKey,
  hashSecret,
  keyEnvironmentFor,
  lastFour,
  platformKeyPrefix,
} from '../shared/keys.js';

/** Issuing and revoking brand and platform keys: the admin API, the CLI, the dashboard and the fixture loader all come here. */

function checkKeyId(keyId: string): string {
  if (!isUuid(keyId)) throw badRequest(`keyId must be a UUID (got "${keyId}")`);
  return keyId.toLowerCase();
}

/**
 * Issues a platform key. The plaintext is returned once and only its hash is stored. A given
 * plaintext (fixtures, tests) is accepted outside prod only, and must have this host's prefix.
 */
export async function issuePlatformKey(
  ctx: ServiceContext,
  platformId: string,
  options: { expiresAt?: Date | null; plaintext?: string } = {},
): Promise<{ keyId: string; key: string; platformId: string; expiresAt: string | null }> {
  const id = await requirePlatform(ctx, platformId);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generatePlatformKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx.serviceEnv, key, platformKeyPrefix(environment), 'key');
  const expiresAt = options.expiresAt ?? null;
  const keyId = await dal.insertPlatformKey(ctx.db, {
    platformId: id,
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
    expiresAt,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key, platformId: id, expiresAt: expiresAt?.toISOString() ?? null };
}

/**
 * Issues a brand key. `byUserId` names the staff account issuing it in the dashboard; without one
 * support issued it (the admin API, the CLI). The key belongs to the brand, not to that person or
 * their session: it works until someone revokes it (docs/security.md, "Brand API keys outlive sessions").
 */
export async function issueBrandKey(
  ctx: ServiceContext,
  companyId: string,
  options: { name?: string; plaintext?: string; byUserId?: string } = {},
): Promise<{ keyId: string; key: string; companyId: string; name: string }> {
  if (!(await companyExists(ctx, companyId))) throw notFound(`no company ${companyId}`);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generateBrandKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx.serviceEnv, key, brandKeyPrefix(environment), 'key');
  const name = options.name?.trim() || 'API key';
  const keyId = await dal.insertBrandKey(ctx.db, {
    companyId,
    name,
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
    issuedBy: options.byUserId === undefined ? 'support' : 'staff',
    createdByUserId: options.byUserId ?? null,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key, companyId, name };
}

/** Revokes a key; revoking a revoked key again succeeds and keeps the first revocation date. */
export async function revokeKey(
  ctx: ServiceContext,
  kind: 'platform' | 'brand',
  keyId: string,
): Promise<{ keyId: string; revokedAt: string }> {
  const id = checkKeyId(keyId);
  const revokedAt = await dal.revokeKey(ctx.db, kind === 'platform' ? 'platform_keys' : 'brand_api_keys', id);
  if (!revokedAt) throw notFound(`no ${kind} key ${keyId}`);
  await ctx.bus.publish('credentials');
  return { keyId: id, revokedAt: revokedAt.toISOString() };
}

/** A secret given in plaintext (fixtures) is for test and dev hosts only, and must fit this host. */
export function checkGivenKey(serviceEnv: ServiceEnv, key: string, prefix: string, field: string): void {
  if (serviceEnv === 'prod') {
    throw badRequest(`${field}: keys with a given plaintext are refused when SERVICE_ENV=prod`);
  }
  const problem = checkKeyShape(key, prefix);
  if (problem) throw badRequest(`${field}: ${problem}`);
}

export async function listPlatformKeys(ctx: Pick<ServiceContext, 'db'>, platformId: string) {
  return dal.listPlatformKeys(ctx.db, platformId);
}

export async function listBrandKeys(ctx: Pick<ServiceContext, 'db'>, companyId: string) {
  return dal.listBrandKeys(ctx.db, companyId);
}

/** A brand revokes one of its own keys (the dashboard); another brand's key is not found. */
export async function revokeBrandKeyOf(
  ctx: ServiceContext,
  companyId: string,
  keyId: string,
): Promise<{ keyId: string; revokedAt: string }> {
  if (!(await dal.brandKeyBelongsTo(ctx.db, keyId, companyId))) throw notFound(`no key ${keyId}`);
  return revokeKey(ctx, 'brand', keyId);
}

/** The brands seen calling through a platform (SPEC 2.6), first seen first. */
export async function listPlatformCompanies(ctx: Pick<ServiceContext, 'db'>, platformId: string) {
  const id = await requirePlatform(ctx, platformId);
  const data = await dal.listPlatformCompanies(ctx.db, id);
  return { data, totalRows: data.length };
}

/** Which of these key hashes are stored and not revoked (the startup banner prints only keys that work). */
export async function usableKeyHashes(
  ctx: Pick<ServiceContext, 'db'>,
  table: 'platform_keys' | 'brand_api_keys',
  hashes: string[],
): Promise<Set<string>> {
  return dal.findUsableKeyHashes(ctx.db, table, hashes);
}
