import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { ApiError } from '../http/errors.js';
import type { CommerceAdapter } from './adapter.js';
import { SandboxCommerce } from './sandbox.js';

/**
 * The commerce platform this host has, or none. The sandbox stands in for commerce platforms on
 * test and dev hosts only; a prod host has none until a real platform's adapter is configured,
 * and then store ownership comes from that platform alone (docs/security.md).
 */
export function commerceAdapterFor(config: Config, db: Db): CommerceAdapter | null {
  if (config.serviceEnv === 'prod') return null;
  return new SandboxCommerce(db, config.baseUrl, config.plugin.sandboxImportMs, config.orders.webhookSecret);
}

/** 409 for an action that needs the store's commerce platform on a host that has none. */
export function noCommercePlatform(what: string): ApiError {
  return new ApiError(409, 'no_commerce_platform', `no store platform is connected on this host, so ${what}`);
}
