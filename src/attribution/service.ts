import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { boundedCache } from '../cache/bounded.js';
import type { Db } from '../db/database.js';
import {
  findReferralLink,
  platformTotals,
  upsertReferralLinks,
  type DayRange,
  type LinkKey,
  type PerformanceFigures,
  type ResolvedLink,
} from './dal.js';
import { CounterWriter } from './counter-writer.js';
import { CounterCommitter } from './group-commit.js';

/** 128 random bits, URL-safe: a link cannot be guessed or derived from the ids it stands for. */
const TOKEN_BYTES = 16;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** Bounds the token cache; past it the least recently used entries go and are read back on demand. */
const MAX_CACHED_TOKENS = 100_000;

export type { LinkKey, ResolvedLink } from './dal.js';

/** The link a referral token names, read on the caller's connection: an order credited in its own transaction. */
export function referralLinkOf(db: Db, token: string): Promise<ResolvedLink | undefined> {
  return findReferralLink(db, token);
}

/** Whether a string has the shape of a referral token: what a store recorded may be anything, only this is looked up. */
export function isReferralToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function newReferralToken(): string {
  return crypto.randomBytes(TOKEN_BYTES).toString('base64url');
}

function linkCacheKey(link: LinkKey): string {
  return `${link.platformId}\u0000${link.campaignId}\u0000${link.brandId}\u0000${link.partnerId}`;
}

/**
 * Credits platforms with what their offers did: referral links (one per platform, campaign,
 * showing brand and partner), views and clicks, written by group commit.
 */
export class Attribution {
  readonly counters: CounterCommitter;
  private readonly writer: CounterWriter;
  private readonly tokens = boundedCache<string>(MAX_CACHED_TOKENS);

  /** `waitLimitMs`: the longest a request waits for its views or click to be committed. */
  constructor(
    private readonly db: Db,
    private readonly baseUrl: string,
    waitLimitMs: number,
    log: FastifyBaseLogger,
  ) {
    this.writer = new CounterWriter(db, log);
    this.counters = new CounterCommitter((rows, signal) => this.writer.write(rows, signal), waitLimitMs);
  }

  /** Waits for the last batch, then settles one the database left unanswered, if it can. */
  async close(): Promise<void> {
    await this.counters.drain();
    await this.writer.close();
  }

  /** The referral token of each link, in order; links never issued before are created in one statement. */
  async referralTokens(links: LinkKey[]): Promise<string[]> {
    const missing = links.filter((link) => !this.tokens.has(linkCacheKey(link)));
    if (missing.length > 0) {
      const stored = await upsertReferralLinks(
        this.db,
        missing.map((link) => ({ ...link, token: newReferralToken() })),
      );
      for (const link of stored) this.tokens.set(linkCacheKey(link), link.token);
    }
    return links.map((link) => {
      const token = this.tokens.get(linkCacheKey(link));
      if (token === undefined) throw new Error(`referral link was not stored for campaign ${link.campaignId}`);
      return token;
    });
  }

  referralUrl(token: string): string {
    return `${this.baseUrl}/r/${token}`;
  }

  /** Undefined for anything that is not a token the service issued. */
  async resolveToken(token: string): Promise<ResolvedLink | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return findReferralLink(this.db, token);
  }

  /** Settles once the views are durable; rejects when they could not be written. */
  recordViews(links: readonly LinkKey[], at: Date): Promise<void> {
    return this.counters.record(links, 1, 0, at);
  }

  recordClick(link: LinkKey, at: Date): Promise<void> {
    return this.counters.record([link], 0, 1, at);
  }

  platformTotals(platformId: string | null, range: DayRange = {}): Promise<PerformanceFigures> {
    return platformTotals(this.db, platformId, range);
  }
}
