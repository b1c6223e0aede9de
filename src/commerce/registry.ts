import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { ApiError } from '../http/errors.js';
import type { CommerceAdapter } from './adapter.js';
import { SandboxCommerce } from './sandbox.js';

/** The commerce platforms a host talks to, by platform: each store lives on one of them. */
export class CommerceRegistry {
  private readonly adapters: ReadonlyMap<string, CommerceAdapter>;

  constructor(entries: ReadonlyArray<readonly [platform: string, adapter: CommerceAdapter | null]>) {
    this.adapters = new Map(entries.filter((entry): entry is readonly [string, CommerceAdapter] => entry[1] !== null));
  }

  /** The adapter of one platform, by the key it was registered under (`sandbox`). */
  get(platform: string): CommerceAdapter | undefined {
    return this.adapters.get(platform);
  }

  /**
   * The platform a store is taken to be on when nothing says otherwise (a sign-up's claim, the
   * plugin, the dashboard's discount code): the first one registered; null on a host with none.
   */
  get primary(): CommerceAdapter | null {
    return this.adapters.values().next().value ?? null;
  }

  /** The sandbox, on test and dev hosts: its pages and support's owner command need more than the adapter interface. */
  get sandbox(): SandboxCommerce | undefined {
    const sandbox = this.adapters.get(SANDBOX);
    return sandbox instanceof SandboxCommerce ? sandbox : undefined;
  }

  all(): CommerceAdapter[] {
    return [...this.adapters.values()];
  }
}

const SANDBOX = 'sandbox';

/**
 * The commerce platforms this host has, one entry per platform (null where the host has none of
 * it); a real platform's adapter is one more entry. The sandbox stands in for commerce platforms
 * on test and dev hosts only; a prod host has none until a real platform's adapter is
 * configured, and then store ownership comes from that platform alone (docs/security.md).
 */
export function commercePlatformsFor(config: Config, db: Db): CommerceRegistry {
  return new CommerceRegistry([
    [
      SANDBOX,
      config.serviceEnv === 'prod'
        ? null
        : new SandboxCommerce(db, config.baseUrl, config.plugin.sandboxImportMs, config.orders.webhookSecret),
    ],
  ]);
}

/** 409 for an action that needs the store's commerce platform on a host that has none. */
export function noCommercePlatform(what: string): ApiError {
  return new ApiError(409, 'no_commerce_platform', `no store platform is connected on this host, so ${what}`);
}
