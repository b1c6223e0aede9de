import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { BestSellerPreview } from './embed-contract.js';

/** SQL of merchant onboarding: the plugin's reads of platforms and brands, setup jobs and consent. */

export interface PluginPlatform {
  id: string;
  active: boolean;
  offerTypes: string[];
  approvedOrigins: string[];
  pluginPageUrl: string | null;
}

export async function findPluginPlatform(db: Db, platformId: string): Promise<PluginPlatform | undefined> {
  const row = await db
    .selectFrom('platforms')
    .select(['id', 'active', 'offer_types', 'approved_origins', 'plugin_page_url'])
    .where('id', '=', platformId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    active: row.active,
    offerTypes: row.offer_types,
    approvedOrigins: row.approved_origins,
    pluginPageUrl: row.plugin_page_url,
  };
}

export async function isBrandSynced(db: Db, platformId: string, domains: string[]): Promise<boolean> {
  const row = await db
    .selectFrom('platform_brands')
    .select('domain')
    .where('platform_id', '=', platformId)
    .where('domain', 'in', domains)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row !== undefined;
}

export interface StoreRecord {
  companyId: string | null;
  offer: {
    live: boolean;
    title: string;
    subtitle: string | null;
    imageUrl: string;
    discountPercent: number | null;
    discountCode: string | null;
  } | null;
  merchant: {
    consentedAt: Date | null;
    turnedOffAt: Date | null;
    bestSellers: BestSellerPreview[];
    existingDiscountPercent: number | null;
  } | null;
  business: { name: string | null; logoImageUrl: string | null; description: string | null } | null;
  /** parked: the store left mid-setup, which waits for it to come back (installed, plan approved). */
  setup: { step: 'import' | 'offer' | 'match' | 'done'; startedAt: Date; parked: boolean } | null;
}

/** Everything the service holds about a store, in one round trip. */
export async function loadStoreRecord(db: Db, domain: string): Promise<StoreRecord> {
  const result = await sql<{
    company_id: string | null;
    business_name: string | null;
    logo_image_url: string | null;
    description: string | null;
    offer_live: boolean | null;
    title: string | null;
    subtitle: string | null;
    image_url: string | null;
    discount_percent: number | null;
    discount_code: string | null;
    merchant_domain: string | null;
    consented_at: Date | null;
    turned_off_at: Date | null;
    best_sellers: BestSellerPreview[] | null;
    existing_discount_percent: number | null;
    step: 'import' | 'offer' | 'match' | 'done' | null;
    started_at: Date | null;
    setup_status: 'pending' | 'done' | 'parked' | null;
  }>`
    select c.id as company_id, c.business_name, c.logo_image_url, c.description,
           o.live as offer_live, o.title, o.subtitle, o.image_url, o.discount_percent, o.discount_code,
           m.domain as merchant_domain, m.consented_at, m.turned_off_at, m.best_sellers, m.existing_discount_percent,
           j.step, j.started_at, j.status as setup_status
    from (select ${domain}::text as domain) d
    left join merchant_stores m on m.domain = d.domain
    left join companies c on c.id = coalesce(m.company_id, (select id from companies where domain = d.domain))
    left join offers o on o.company_id = c.id
    left join setup_jobs j on j.domain = d.domain`.execute(db);
  const row = result.rows[0]!;
  return {
    companyId: row.company_id,
    business: row.company_id ? { name: row.business_name, logoImageUrl: row.logo_image_url, description: row.description } : null,
    offer:
      row.offer_live === null
        ? null
        : {
            live: row.offer_live,
            title: row.title!,
            subtitle: row.subtitle,
            imageUrl: row.image_url!,
            discountPercent: row.discount_percent,
            discountCode: row.discount_code,
          },
    merchant: row.merchant_domain
      ? {
          consentedAt: row.consented_at,
          turnedOffAt: row.turned_off_at,
          bestSellers: row.best_sellers ?? [],
          existingDiscountPercent: row.existing_discount_percent,
        }
      : null,
    setup: row.step && row.started_at ? { step: row.step, startedAt: row.started_at, parked: row.setup_status === 'parked' } : null,
  };
}

/**
 * Queues the store's setup once; a second call (webhook and page load racing) changes nothing. A
 * parked one (the store had left) resumes at the step it reached.
 */
export async function ensureSetupJob(db: Db, domain: string, now: Date): Promise<void> {
  await db
    .insertInto('setup_jobs')
    .values({ domain, started_at: now, next_attempt_at: now })
    .onConflict((oc) =>
      oc
        .column('domain')
        .doUpdateSet({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null, lease_id: null })
        .where('setup_jobs.status', '=', 'parked'),
    )
    .execute();
}

export interface ClaimedJob {
  domain: string;
  step: 'import' | 'offer' | 'match';
  attempts: number;
  /** This claim's lease: the job's progress is written only while the job still carries it. */
  leaseId: string;
}

/**
 * Claims the most overdue job with a lease. A worker that dies leaves the lease to expire and
 * another (or the restarted one) resumes the job at the step it had reached.
 */
export async function claimDueJob(db: Db, now: Date, leaseMs: number): Promise<ClaimedJob | undefined> {
  const leaseId = crypto.randomUUID();
  const result = await sql<{ domain: string; step: ClaimedJob['step']; attempts: number }>`
    update setup_jobs set locked_until = ${new Date(now.getTime() + leaseMs)}, lease_id = ${leaseId}, attempts = attempts + 1
    where domain = (
      select domain from setup_jobs
      where status = 'pending' and next_attempt_at <= ${now} and (locked_until is null or locked_until < ${now})
      order by next_attempt_at
      limit 1
      for update skip locked
    )
    returning domain, step, attempts`.execute(db);
  const row = result.rows[0];
  return row ? { ...row, leaseId } : undefined;
}

/** The job is still this claim's: nobody took it over and the lease has not run out. */
function holdsLease(domain: string, leaseId: string, now: Date) {
  return sql<boolean>`domain = ${domain} and lease_id = ${leaseId} and locked_until >= ${now}`;
}

/** Extends a held lease while a long step runs; false when the lease was lost. */
export async function renewLease(db: Db, domain: string, leaseId: string, now: Date, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('setup_jobs')
    .set({ locked_until: new Date(now.getTime() + leaseMs) })
    .where(holdsLease(domain, leaseId, now))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records the step a job reached and releases the lease; false (nothing written) when the lease was lost. */
export async function advanceJob(db: Db, domain: string, leaseId: string, step: 'offer' | 'match' | 'done', now: Date): Promise<boolean> {
  const result = await db
    .updateTable('setup_jobs')
    .set(
      step === 'done'
        ? { step, status: 'done', completed_at: now, locked_until: null, lease_id: null, last_error: null }
        : { step, attempts: 0, next_attempt_at: now, locked_until: null, lease_id: null, last_error: null },
    )
    .where(holdsLease(domain, leaseId, now))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Puts a failed job back for later, with the error; false (nothing written) when the lease was lost. */
export async function rescheduleJob(db: Db, domain: string, leaseId: string, at: Date, error: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('setup_jobs')
    .set({ next_attempt_at: at, locked_until: null, lease_id: null, last_error: error })
    .where(holdsLease(domain, leaseId, now))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Parks a failed job whose store has left (uninstalled, token revoked): nothing retries it until
 * the store comes back and ensureSetupJob resumes it. False (nothing written) when the lease was lost.
 */
export async function parkJob(db: Db, domain: string, leaseId: string, error: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('setup_jobs')
    .set({ status: 'parked', locked_until: null, lease_id: null, last_error: error })
    .where(holdsLease(domain, leaseId, now))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Links the store's onboarding record to its brand, with the discount the store already gives new customers. */
export async function linkMerchantStore(db: Db, domain: string, companyId: string, existingDiscountPercent: number | null): Promise<void> {
  await db
    .insertInto('merchant_stores')
    .values({ domain, company_id: companyId, existing_discount_percent: existingDiscountPercent })
    .onConflict((oc) =>
      oc
        .column('domain')
        .doUpdateSet({ company_id: companyId, existing_discount_percent: existingDiscountPercent, updated_at: new Date() }),
    )
    .execute();
}

/** The best sellers the consent screen previews, kept with the store's onboarding record. */
export async function saveBestSellers(db: Db, domain: string, bestSellers: BestSellerPreview[]): Promise<void> {
  await db
    .updateTable('merchant_stores')
    .set({ best_sellers: JSON.stringify(bestSellers), updated_at: new Date() })
    .where('domain', '=', domain)
    .execute();
}

/**
 * Records the merchant's consent, once: a second consent (double click, two tabs) finds
 * consented_at set and changes nothing. Returns whether this call recorded it.
 */
export async function recordConsent(db: Db, domain: string, consent: { percent: number; code: string }, now: Date): Promise<boolean> {
  const updated = await db
    .updateTable('merchant_stores')
    .set({ consented_at: now, discount_percent: consent.percent, discount_code: consent.code, updated_at: now })
    .where('domain', '=', domain)
    .where('consented_at', 'is', null)
    .returning('domain')
    .executeTakeFirst();
  return updated !== undefined;
}

/**
 * Notes a change of the store's state (uninstall, reinstall, the merchant closing or reopening)
 * and returns its brand and consent, which decide whether its offer shows.
 */
export async function touchMerchantStore(db: Db, domain: string, turnedOff: boolean | undefined, now: Date) {
  return db
    .updateTable('merchant_stores')
    .set(turnedOff === undefined ? { updated_at: now } : { turned_off_at: turnedOff ? now : null, updated_at: now })
    .where('domain', '=', domain)
    .returning(['company_id', 'consented_at'])
    .executeTakeFirst();
}

/** The demo host page embeds the plugin for the demo fixtures' platform, found by its name. */
export async function findPlatformIdByName(db: Db, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('platforms')
    .select('id')
    .where('name', '=', name)
    .where('active', '=', true)
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.id;
}

// --- what lets the embed app act for a store (src/embed/merchant-tokens.ts) ---

/**
 * Records the commerce platform's word that the store's owner finished an action whose link
 * carried `challenge`, and drops the store's stale confirmations. A challenge already recorded
 * for another store is left as it is.
 */
export async function recordMerchantConfirmation(db: Db, domain: string, challenge: string, now: Date, staleBefore: Date): Promise<void> {
  await sql`
    with stale as (
      delete from merchant_confirmations where domain = ${domain} and confirmed_at < ${staleBefore} and challenge <> ${challenge}
    )
    insert into merchant_confirmations (challenge, domain, confirmed_at) values (${challenge}, ${domain}, ${now})
    on conflict (challenge) do update set confirmed_at = excluded.confirmed_at
      where merchant_confirmations.domain = excluded.domain`.execute(db);
}

/**
 * Spends a fresh confirmation of `challenge` for the store and stores a token bound to the store
 * and an active platform, in one statement; false when there is no such confirmation (nothing is
 * written then). The store's expired tokens go with it.
 */
export async function exchangeConfirmation(
  db: Db,
  exchange: { challenge: string; domain: string; platformId: string; tokenHash: string; confirmedAfter: Date; expiresAt: Date; now: Date },
): Promise<boolean> {
  const result = await sql<{ token_hash: string }>`
    with taken as (
      delete from merchant_confirmations
      where challenge = ${exchange.challenge} and domain = ${exchange.domain} and confirmed_at > ${exchange.confirmedAfter}
        and exists (select 1 from platforms where id = ${exchange.platformId}::uuid and active)
      returning domain
    ), expired as (
      delete from merchant_tokens where domain = ${exchange.domain} and expires_at <= ${exchange.now} and exists (select 1 from taken)
    )
    insert into merchant_tokens (token_hash, domain, platform_id, expires_at, challenge)
    select ${exchange.tokenHash}, domain, ${exchange.platformId}::uuid, ${exchange.expiresAt}, ${exchange.challenge} from taken
    returning token_hash`.execute(db);
  return result.rows.length > 0;
}

/**
 * Whether the store's owner confirmed `challenge` for the store: a fresh confirmation not traded
 * yet, or a live token traded for it.
 */
export async function challengeConfirmed(
  db: Db,
  proof: { domain: string; challenge: string; confirmedAfter: Date; now: Date },
): Promise<boolean> {
  const result = await sql<{ confirmed: boolean }>`
    select exists (
      select 1 from merchant_confirmations
      where challenge = ${proof.challenge} and domain = ${proof.domain} and confirmed_at > ${proof.confirmedAfter}
    ) or exists (
      select 1 from merchant_tokens where challenge = ${proof.challenge} and domain = ${proof.domain} and expires_at > ${proof.now}
    ) as confirmed`.execute(db);
  return result.rows[0]?.confirmed === true;
}

/** Whether the token (by its hash) is bound to this store and platform and has not expired. */
export async function merchantTokenValid(
  db: Db,
  token: { tokenHash: string; domain: string; platformId: string },
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('merchant_tokens')
    .select('token_hash')
    .where('token_hash', '=', token.tokenHash)
    .where('domain', '=', token.domain)
    .where('platform_id', '=', token.platformId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}
