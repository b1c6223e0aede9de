import crypto from 'node:crypto';
import { isUuid } from '../config.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { checkHttpUrl } from '../http/urls.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';
import { parseDomain } from '../shared/domain.js';
import { prepareSyncRows, type SyncBrandInput } from './sync.js';

/** The offer types a platform can be set up to show (SPEC 4.1). */
export const OFFER_TYPES = ['post-purchase'] as const;

/**
 * An approved origin is protocol plus host (SPEC 4.7); a port is kept because the browser counts
 * it. Returns the canonical form (`https://app.example`), or throws naming the field.
 */
export function normalizeOrigin(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badRequest(`${field} must be an origin such as https://app.example (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`${field} must use http or https (got "${value}")`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw badRequest(`${field} must be an origin only, without path, query or credentials (got "${value}")`);
  }
  return url.origin;
}

/** Normalizes and checks a platform as a whole: origins, offer types and the plugin page address. */
export function preparePlatform(platform: dal.PlatformInput, field = (name: string) => name): dal.PlatformInput {
  const name = platform.name.trim();
  if (name === '') throw badRequest(`${field('name')} must not be empty`);
  platform.offerTypes.forEach((type, index) => {
    if (!(OFFER_TYPES as readonly string[]).includes(type)) {
      throw badRequest(`${field(`offerTypes[${index}]`)} must be one of ${OFFER_TYPES.join(', ')}`);
    }
  });
  const approvedOrigins = [
    ...new Set(platform.approvedOrigins.map((origin, index) => normalizeOrigin(origin, field(`approvedOrigins[${index}]`)))),
  ];
  let pluginPageUrl: string | null = null;
  if (platform.pluginPageUrl !== null) {
    pluginPageUrl = checkHttpUrl(platform.pluginPageUrl, field('pluginPageUrl'));
    // The return flow after plan approval only works on a page the plugin may load on (SPEC 4.7).
    if (!approvedOrigins.includes(new URL(pluginPageUrl).origin)) {
      throw badRequest(`${field('pluginPageUrl')} must be on one of the approved origins`);
    }
  }
  return {
    id: platform.id.toLowerCase(),
    name,
    active: platform.active,
    offerTypes: [...new Set(platform.offerTypes)],
    approvedOrigins,
    pluginPageUrl,
  };
}

function checkPlatformId(platformId: string): string {
  if (!isUuid(platformId)) throw badRequest(`platformId must be a UUID (got "${platformId}")`);
  return platformId.toLowerCase();
}

export interface NewPlatform {
  id?: string;
  name: string;
  active?: boolean;
  offerTypes?: string[];
  approvedOrigins?: string[];
  pluginPageUrl?: string | null;
}

export async function createPlatform(ctx: DataContext, input: NewPlatform): Promise<dal.PlatformRow> {
  const id = input.id === undefined ? crypto.randomUUID() : checkPlatformId(input.id);
  const platform = preparePlatform({
    id,
    name: input.name,
    active: input.active ?? true,
    offerTypes: input.offerTypes ?? ['post-purchase'],
    approvedOrigins: input.approvedOrigins ?? [],
    pluginPageUrl: input.pluginPageUrl ?? null,
  });
  const created = await dal.insertPlatform(ctx.db, platform);
  if (!created) throw conflict(`platform ${id} already exists; update it instead`);
  await ctx.bus.publish('platforms');
  return created;
}

export type PlatformChanges = Partial<Omit<dal.PlatformInput, 'id'>>;

export async function updatePlatform(ctx: DataContext, platformId: string, changes: PlatformChanges): Promise<dal.PlatformRow> {
  const current = await getPlatform(ctx, platformId);
  const merged = preparePlatform({
    id: current.id,
    name: changes.name ?? current.name,
    active: changes.active ?? current.active,
    offerTypes: changes.offerTypes ?? current.offerTypes,
    approvedOrigins: changes.approvedOrigins ?? current.approvedOrigins,
    pluginPageUrl: changes.pluginPageUrl !== undefined ? changes.pluginPageUrl : current.pluginPageUrl,
  });
  const updated = await dal.updatePlatform(ctx.db, merged);
  if (!updated) throw notFound(`no platform ${platformId}`);
  await ctx.bus.publish('platforms');
  return updated;
}

export async function getPlatform(ctx: Pick<DataContext, 'db'>, platformId: string): Promise<dal.PlatformRow> {
  const platform = await dal.findPlatform(ctx.db, checkPlatformId(platformId));
  if (!platform) throw notFound(`no platform ${platformId}`);
  return platform;
}

/** The platform's name, or null when no platform has that id (a page naming who asks). */
export async function platformName(ctx: Pick<DataContext, 'db'>, platformId: string): Promise<string | null> {
  return (await dal.findPlatform(ctx.db, platformId))?.name ?? null;
}

/** The platform's id as stored, once it is a UUID of a platform that exists: 400 or 404 otherwise. */
export async function requirePlatform(ctx: Pick<DataContext, 'db'>, platformId: string): Promise<string> {
  const id = checkPlatformId(platformId);
  if (!(await dal.platformExists(ctx.db, id))) throw notFound(`no platform ${platformId}`);
  return id;
}

export async function listPlatforms(ctx: Pick<DataContext, 'db'>) {
  const data = await dal.listPlatforms(ctx.db);
  return { data, totalRows: data.length };
}

export async function setPlatformActive(ctx: DataContext, platformId: string, active: boolean): Promise<dal.PlatformRow> {
  const platform = await dal.setPlatformActive(ctx.db, checkPlatformId(platformId), active);
  if (!platform) throw notFound(`no platform ${platformId}`);
  await ctx.bus.publish('platforms');
  return platform;
}

export async function listPlatformBrands(ctx: Pick<DataContext, 'db'>, platformId: string, domain?: string) {
  const platform = await getPlatform(ctx, platformId);
  // A filter that is no domain at all matches no brand, as an unknown domain would.
  const data = await dal.listPlatformBrands(ctx.db, platform.id, domain === undefined ? undefined : (parseDomain(domain).domain ?? ''));
  return { data, totalRows: data.length };
}

/**
 * The service's own platform is usable: it exists, is active and shows post-purchase offers.
 * Returns whether it had to be changed.
 */
export async function ensureServicePlatform(ctx: DataContext, platformId: string, name: string): Promise<boolean> {
  const changed = await dal.ensureServicePlatform(ctx.db, platformId, name);
  if (changed) await ctx.bus.publish('platforms');
  return changed;
}

/**
 * POST /v1/platform/brands: the platform's brands, upserted by normalized domain in one
 * statement once every item has been checked.
 */
export async function syncBrands(
  ctx: Pick<DataContext, 'db'>,
  platformId: string,
  brands: SyncBrandInput[],
  now = new Date(),
): Promise<dal.UpsertCounts> {
  return dal.upsertPlatformBrands(ctx.db, platformId, prepareSyncRows(brands), now);
}
