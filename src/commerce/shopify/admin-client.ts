import { GraphqlQueryError, HttpResponseError, type Session } from '@shopify/shopify-api';
import type { ShopifyLibrary } from './library.js';
import { TokenRefusedError } from './tokens.js';

/**
 * The GraphQL Admin API as the adapter calls it: the library's client (its fetch, headers and
 * version), paced by Shopify's cost-based throttling. Each answer's
 * `extensions.cost.throttleStatus` says what is left in the store's bucket and how fast it
 * refills; a call waits until the bucket holds what the same document cost last time, so it is
 * not sent to be refused, and a `THROTTLED` answer (another client of the same store spent the
 * points) is retried once the bucket holds the requested cost. A 401 is first taken as a token
 * that ran out: the token is renewed once and the call retried; only Shopify refusing the renewal
 * (the store revoked the app) ends in a StoreDisconnectedError.
 */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface Cost {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: ThrottleStatus;
}

/** Admin API calls and points of one store, for the bench and the logs. */
export interface ApiUsage {
  calls: number;
  points: number;
  throttled: number;
  waitedMs: number;
}

export class StoreDisconnectedError extends Error {
  override name = 'StoreDisconnectedError';
}

/** Shopify answered a mutation with userErrors. */
export class ShopifyUserError extends Error {
  override name = 'ShopifyUserError';
  constructor(
    readonly operation: string,
    readonly userErrors: Array<{ field?: string[] | null; message: string; code?: string | null }>,
  ) {
    super(`${operation}: ${userErrors.map((error) => error.message).join('; ')}`);
  }
}

const MAX_THROTTLED_RETRIES = 8;
const MAX_WAIT_MS = 60_000;

/** Where the client gets a store's session, and a new one after a 401 (ShopTokens). */
export interface SessionSource {
  session(shop: string): Promise<Session>;
  renew(shop: string, why: { rejected: Session }): Promise<Session>;
}

export interface AdminClientOptions {
  library: ShopifyLibrary;
  sessions: SessionSource;
  /** Waits; tests and benches may pass their own. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export class AdminClient {
  private readonly buckets = new Map<string, { status: ThrottleStatus; at: number }>();
  /** What each document cost when last sent, to wait for before sending it again. */
  private readonly lastCost = new Map<string, number>();
  private readonly usage = new Map<string, ApiUsage>();
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: AdminClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  usageOf(shop: string): ApiUsage {
    return { ...(this.usage.get(shop) ?? { calls: 0, points: 0, throttled: 0, waitedMs: 0 }) };
  }

  /** Runs one document for the store; GraphQL errors other than throttling are thrown. */
  async request<T>(shop: string, document: string, variables?: Record<string, unknown>): Promise<T> {
    const usage = this.usage.get(shop) ?? { calls: 0, points: 0, throttled: 0, waitedMs: 0 };
    this.usage.set(shop, usage);
    let session = await this.options.sessions.session(shop);
    let client = new this.options.library.clients.Graphql({ session });
    let renewed = false;
    for (let attempt = 0; ; attempt += 1) {
      const wait = this.waitFor(shop, this.lastCost.get(document) ?? 0);
      if (wait > 0) {
        usage.waitedMs += wait;
        await this.sleep(wait);
      }
      usage.calls += 1;
      try {
        const response = await client.request(document, { variables });
        const cost = (response.extensions as { cost?: Cost } | undefined)?.cost;
        if (cost) this.noteCost(shop, document, cost, usage);
        return response.data as T;
      } catch (error) {
        if (error instanceof HttpResponseError && error.response.code === 401) {
          if (renewed) throw new Error(`${shop}: the Admin API refused a token Shopify had just issued (401); retried later`);
          try {
            session = await this.options.sessions.renew(shop, { rejected: session });
          } catch (renewal) {
            if (renewal instanceof TokenRefusedError) throw new StoreDisconnectedError(renewal.message);
            throw renewal;
          }
          client = new this.options.library.clients.Graphql({ session });
          renewed = true;
          continue;
        }
        if (!(error instanceof GraphqlQueryError)) throw error;
        const body = error.body as { errors?: { graphQLErrors?: Array<{ extensions?: { code?: string } }> }; extensions?: { cost?: Cost } };
        const cost = body?.extensions?.cost;
        const throttled = body?.errors?.graphQLErrors?.some((entry) => entry.extensions?.code === 'THROTTLED') ?? false;
        if (!throttled || attempt >= MAX_THROTTLED_RETRIES) throw error;
        usage.throttled += 1;
        if (cost) {
          this.noteCost(shop, document, cost, usage);
          // Wait for what this call asks for, whatever was known before.
          const status = cost.throttleStatus;
          const missing = Math.max(0, cost.requestedQueryCost - status.currentlyAvailable);
          const wait = Math.min(MAX_WAIT_MS, Math.ceil((missing / status.restoreRate) * 1000) + 50 * (attempt + 1));
          usage.waitedMs += wait;
          await this.sleep(wait);
        } else {
          await this.sleep(Math.min(MAX_WAIT_MS, 1000 * 2 ** attempt));
        }
      }
    }
  }

  private noteCost(shop: string, document: string, cost: Cost, usage: ApiUsage): void {
    this.buckets.set(shop, { status: cost.throttleStatus, at: this.now() });
    this.lastCost.set(document, cost.requestedQueryCost);
    usage.points += cost.actualQueryCost ?? 0;
  }

  /** How long until the store's bucket, as last reported and refilled since, holds `cost` points. */
  private waitFor(shop: string, cost: number): number {
    const known = this.buckets.get(shop);
    if (!known || cost === 0) return 0;
    const { maximumAvailable, currentlyAvailable, restoreRate } = known.status;
    const needed = Math.min(cost, maximumAvailable);
    const available = Math.min(maximumAvailable, currentlyAvailable + ((this.now() - known.at) / 1000) * restoreRate);
    return available >= needed ? 0 : Math.min(MAX_WAIT_MS, Math.ceil(((needed - available) / restoreRate) * 1000));
  }
}
