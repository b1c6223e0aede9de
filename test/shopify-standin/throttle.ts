import type { ShopPlan } from './model.js';

/**
 * Shopify's cost-based throttling for the GraphQL Admin API: a leaky bucket of points per app and
 * store. Restore rates are the documented ones per plan
 * (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits: Standard 100, Advanced 200,
 * Plus 1000, Enterprise 2000 points/second); the bucket holds 20 seconds of restore, which is
 * what Shopify's responses report as `maximumAvailable` (2000 at 100/s, 20000 at 1000/s). A single
 * query may cost at most 1000 points on every plan.
 */
export interface ThrottleSettings {
  bucketSize: number;
  restoreRate: number;
  maxQueryCost: number;
}

export const MAX_SINGLE_QUERY_COST = 1000;

export const PLAN_THROTTLE: Record<ShopPlan, ThrottleSettings> = {
  standard: { bucketSize: 2000, restoreRate: 100, maxQueryCost: MAX_SINGLE_QUERY_COST },
  advanced: { bucketSize: 4000, restoreRate: 200, maxQueryCost: MAX_SINGLE_QUERY_COST },
  plus: { bucketSize: 20000, restoreRate: 1000, maxQueryCost: MAX_SINGLE_QUERY_COST },
  enterprise: { bucketSize: 40000, restoreRate: 2000, maxQueryCost: MAX_SINGLE_QUERY_COST },
};

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export class LeakyBucket {
  private available: number;
  private updatedAt: number;

  constructor(
    readonly settings: ThrottleSettings,
    private readonly now: () => number,
  ) {
    this.available = settings.bucketSize;
    this.updatedAt = now();
  }

  private refill(): void {
    const now = this.now();
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1000;
    this.available = Math.min(this.settings.bucketSize, this.available + elapsedSeconds * this.settings.restoreRate);
    this.updatedAt = now;
  }

  status(): ThrottleStatus {
    this.refill();
    return {
      maximumAvailable: this.settings.bucketSize,
      currentlyAvailable: Math.floor(this.available),
      restoreRate: this.settings.restoreRate,
    };
  }

  /** Takes `points` when the bucket holds them; false (nothing taken) when it does not. */
  take(points: number): boolean {
    this.refill();
    if (points > this.available) return false;
    this.available -= points;
    return true;
  }

  refund(points: number): void {
    this.refill();
    this.available = Math.min(this.settings.bucketSize, this.available + Math.max(0, points));
  }
}
