import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { ServiceEnv } from '../config.js';
import {
  brandKeyPrefix,
  checkKeyShape,
  generateBrandKey,
  generatePlatformKey,
  hashSecret,
  keyEnvironmentFor,
  lastFour,
  platformKeyPrefix,
} from '../auth/keys.js';
import * as dal from './dal.js';

export interface SupportContext {
  db: Db;
  bus: InvalidationBus;
  serviceEnv: ServiceEnv;
}

export class SupportError extends Error {
  constructor(
    readonly code: 'not_found' | 'invalid_request',
    message: string,
  ) {
    super(message);
  }
}

/** Support tooling shared by the admin API, the CLI and the fixture loader. */
export async function savePlatform(ctx: SupportContext, platform: dal.PlatformInput): Promise<void> {
  await dal.upsertPlatform(ctx.db, platform);
  await ctx.bus.publish('platforms');
}

export async function setPlatformActive(ctx: SupportContext, platformId: string, active: boolean): Promise<void> {
  if (!(await dal.setPlatformActive(ctx.db, platformId, active))) throw new SupportError('not_found', `no platform ${platformId}`);
  await ctx.bus.publish('platforms');
}

/**
 * Issues a platform key. The plaintext is returned once and only its hash is stored. A given
 * plaintext (fixtures) is accepted outside prod only, and must have this host's prefix.
 */
export async function issuePlatformKey(
  ctx: SupportContext,
  platformId: string,
  options: { expiresAt?: Date | null; plaintext?: string } = {},
): Promise<{ keyId: string; key: string }> {
  if (!(await dal.platformExists(ctx.db, platformId))) throw new SupportError('not_found', `no platform ${platformId}`);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generatePlatformKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx, key, platformKeyPrefix(environment));
  const keyId = await dal.insertPlatformKey(ctx.db, {
    platformId,
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
    expiresAt: options.expiresAt ?? null,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key };
}

export async function issueBrandKey(
  ctx: SupportContext,
  companyId: string,
  options: { name?: string; plaintext?: string } = {},
): Promise<{ keyId: string; key: string }> {
  if (!(await dal.companyExists(ctx.db, companyId))) throw new SupportError('not_found', `no company ${companyId}`);
  const environment = keyEnvironmentFor(ctx.serviceEnv);
  const key = options.plaintext ?? generateBrandKey(environment);
  if (options.plaintext !== undefined) checkGivenKey(ctx, key, brandKeyPrefix(environment));
  const keyId = await dal.insertBrandKey(ctx.db, {
    companyId,
    name: options.name ?? 'API key',
    keyHash: hashSecret(key),
    lastFour: lastFour(key),
    environment,
  });
  await ctx.bus.publish('credentials');
  return { keyId, key };
}

export async function revokeKey(ctx: SupportContext, kind: 'platform' | 'brand', keyId: string): Promise<void> {
  const revoked = await dal.revokeKey(ctx.db, kind === 'platform' ? 'platform_keys' : 'brand_api_keys', keyId);
  if (!revoked) throw new SupportError('not_found', `no unrevoked ${kind} key ${keyId}`);
  await ctx.bus.publish('credentials');
}

export async function saveCompany(ctx: SupportContext, company: dal.CompanyInput): Promise<void> {
  await dal.upsertCompany(ctx.db, company);
}

function checkGivenKey(ctx: SupportContext, key: string, prefix: string): void {
  if (ctx.serviceEnv === 'prod') {
    throw new SupportError('invalid_request', 'keys with a given plaintext are refused when SERVICE_ENV=prod');
  }
  const problem = checkKeyShape(key, prefix);
  if (problem) throw new SupportError('invalid_request', `given key: ${problem}`);
}
