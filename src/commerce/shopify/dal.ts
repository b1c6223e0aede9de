import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** SQL of the Shopify adapter: installed stores, OAuth requests, webhook deliveries, usage records. */

/** The store's offline tokens as stored: encrypted, with their expiries (none: a non-expiring access token). */
export interface StoredTokens {
  tokenEncrypted: string;
  accessTokenExpiresAt: Date | null;
  refreshTokenEncrypted: string | null;
  refreshTokenExpiresAt: Date | null;
}

export interface ShopRow {
  shop: string;
  accessTokenEncrypted: string | null;
  accessTokenExpiresAt: Date | null;
  refreshTokenEncrypted: string | null;
  refreshTokenExpiresAt: Date | null;
  /** Why the store was disconnected last (a refused refresh, a revoked token), for the merchant and support. */
  disconnectReason: string | null;
  scopes: string | null;
  installedAt: Date | null;
  uninstalledAt: Date | null;
  disconnectedAt: Date | null;
  subscriptionId: string | null;
  subscriptionStatus: string | null;
  planApprovedAt: Date | null;
  usageLineItemId: string | null;
  usageCurrency: string | null;
  /** The subscription created for the merchant to approve, with where Shopify sends them back. */
  pending: { subscriptionId: string; confirmationUrl: string; returnUrl: string } | null;
  /** A raise of the capped amount asked of the merchant and not yet shown approved. */
  capRaise: { confirmationUrl: string; cappedMinor: number; requestedAt: Date } | null;
}

export async function findShop(db: Db, shop: string): Promise<ShopRow | undefined> {
  const row = await db.selectFrom('shopify_shops').selectAll().where('shop', '=', shop).executeTakeFirst();
  if (!row) return undefined;
  return {
    shop: row.shop,
    accessTokenEncrypted: row.access_token_encrypted,
    accessTokenExpiresAt: row.access_token_expires_at,
    refreshTokenEncrypted: row.refresh_token_encrypted,
    refreshTokenExpiresAt: row.refresh_token_expires_at,
    disconnectReason: row.disconnect_reason,
    scopes: row.scopes,
    installedAt: row.installed_at,
    uninstalledAt: row.uninstalled_at,
    disconnectedAt: row.disconnected_at,
    subscriptionId: row.subscription_id,
    subscriptionStatus: row.subscription_status,
    planApprovedAt: row.plan_approved_at,
    usageLineItemId: row.usage_line_item_id,
    usageCurrency: row.usage_currency,
    pending:
      row.pending_subscription_id && row.pending_confirmation_url && row.pending_return_url
        ? { subscriptionId: row.pending_subscription_id, confirmationUrl: row.pending_confirmation_url, returnUrl: row.pending_return_url }
        : null,
    capRaise:
      row.cap_raise_confirmation_url && row.cap_raise_minor !== null && row.cap_raise_requested_at
        ? {
            confirmationUrl: row.cap_raise_confirmation_url,
            cappedMinor: Number(row.cap_raise_minor),
            requestedAt: row.cap_raise_requested_at,
          }
        : null,
  };
}

/** The columns of `shopify_shops` that hold the tokens. */
export const tokenColumns = (tokens: StoredTokens) => ({
  access_token_encrypted: tokens.tokenEncrypted,
  access_token_expires_at: tokens.accessTokenExpiresAt,
  refresh_token_encrypted: tokens.refreshTokenEncrypted,
  refresh_token_expires_at: tokens.refreshTokenExpiresAt,
});

type LockedTokens = Pick<ShopRow, 'accessTokenEncrypted' | 'accessTokenExpiresAt' | 'refreshTokenEncrypted' | 'refreshTokenExpiresAt'>;

/**
 * Runs `work` with the store's row locked (`for update`), so one process at a time renews its
 * tokens: an API instance and the worker renewing together wait for each other, and the second
 * finds the tokens the first stored. `save` writes new tokens in the same transaction. A network
 * call inside `work` holds the lock for its duration, which is the point: Shopify spends the
 * refresh token on use, so a second refresh with it must not start before the first is stored.
 */
export async function withShopTokensLocked<T>(
  db: Db,
  shop: string,
  work: (row: LockedTokens | undefined, save: (tokens: StoredTokens & { scopes: string | null }) => Promise<void>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('shopify_shops')
      .select(['access_token_encrypted', 'access_token_expires_at', 'refresh_token_encrypted', 'refresh_token_expires_at'])
      .where('shop', '=', shop)
      .forUpdate()
      .executeTakeFirst();
    const save = async (tokens: StoredTokens & { scopes: string | null }) => {
      await trx
        .updateTable('shopify_shops')
        .set({ ...tokenColumns(tokens), ...(tokens.scopes ? { scopes: tokens.scopes } : {}), updated_at: new Date() })
        .where('shop', '=', shop)
        .where('access_token_encrypted', 'is not', null)
        .execute();
    };
    return work(
      row && {
        accessTokenEncrypted: row.access_token_encrypted,
        accessTokenExpiresAt: row.access_token_expires_at,
        refreshTokenEncrypted: row.refresh_token_encrypted,
        refreshTokenExpiresAt: row.refresh_token_expires_at,
      },
      save,
    );
  });
}

/**
 * Runs `work` holding the store's install lock (an advisory lock, as a store with no row yet has
 * nothing to lock `for update`), with its tokens as they are once the lock is held: concurrent
 * first loads of the embedded app wait for each other, and the second finds the token the first
 * stored. `install` writes the store's tokens in the same transaction, connecting it again if it
 * had left. Whatever `work` throws rolls back, so a refused exchange writes nothing.
 */
export async function withShopInstallLocked<T>(
  db: Db,
  shop: string,
  work: (row: LockedTokens | undefined, install: (tokens: StoredTokens & { scopes: string; now: Date }) => Promise<void>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`shopify install ${shop}`}, 0))`.execute(trx);
    const row = await trx
      .selectFrom('shopify_shops')
      .select(['access_token_encrypted', 'access_token_expires_at', 'refresh_token_encrypted', 'refresh_token_expires_at'])
      .where('shop', '=', shop)
      .executeTakeFirst();
    const install = async (tokens: StoredTokens & { scopes: string; now: Date }) => {
      const columns = tokenColumns(tokens);
      await trx
        .insertInto('shopify_shops')
        .values({ shop, ...columns, scopes: tokens.scopes, installed_at: tokens.now })
        .onConflict((oc) =>
          oc.column('shop').doUpdateSet({
            ...columns,
            scopes: tokens.scopes,
            installed_at: tokens.now,
            uninstalled_at: null,
            disconnected_at: null,
            disconnect_reason: null,
            updated_at: tokens.now,
          }),
        )
        .execute();
    };
    return work(
      row?.access_token_encrypted
        ? {
            accessTokenEncrypted: row.access_token_encrypted,
            accessTokenExpiresAt: row.access_token_expires_at,
            refreshTokenEncrypted: row.refresh_token_encrypted,
            refreshTokenExpiresAt: row.refresh_token_expires_at,
          }
        : undefined,
      install,
    );
  });
}

/** Stores whose tokens need renewing before `before`: a non-expiring access token, or a refresh token running out. */
export async function shopsWithTokensToRenew(db: Db, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('shopify_shops')
    .select('shop')
    .where('access_token_encrypted', 'is not', null)
    .where((eb) => eb.or([eb('access_token_expires_at', 'is', null), eb('refresh_token_expires_at', '<', before)]))
    .orderBy('shop')
    .limit(limit)
    .execute();
  return rows.map((row) => row.shop);
}

/** Connected stores after `after` in domain order, for a job that walks them all a batch at a time. */
export async function connectedShopsAfter(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('shopify_shops')
    .select('shop')
    .where('access_token_encrypted', 'is not', null)
    .where('shop', '>', after)
    .orderBy('shop')
    .limit(limit)
    .execute();
  return rows.map((row) => row.shop);
}

/** OAuth states are kept by hash: the state itself travels in URLs. */
export const stateHash = (state: string) => crypto.createHash('sha256').update(state).digest('hex');

/** What an install carries from its start to its callback (in the starting browser's signed cookie, never in a table). */
export interface OAuthRequest {
  shop: string;
  challenge: string | null;
  returnTo: string | null;
  claimId: string | null;
  /** The claimant's dashboard session, for an install carrying a claim. */
  claimantSessionId: string | null;
  /** The tech platform whose plugin link started the install. */
  platformId: string | null;
}

/** Whether the state of a callback Shopify signed was taken already, since `after`. */
export async function oauthStateTaken(db: Db, state: string, after: Date): Promise<boolean> {
  const row = await db
    .selectFrom('shopify_oauth_states_taken')
    .select('state_hash')
    .where('state_hash', '=', stateHash(state))
    .where('taken_at', '>', after)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes the state of a callback whose HMAC verified, once: false when it was taken already. States
 * taken before `expiredBefore` go (Shopify's signature on a callback is good for a few minutes only).
 */
export async function takeOAuthState(db: Db, state: string, shop: string, now: Date, expiredBefore: Date): Promise<boolean> {
  await db.deleteFrom('shopify_oauth_states_taken').where('taken_at', '<=', expiredBefore).execute();
  const taken = await db
    .insertInto('shopify_oauth_states_taken')
    .values({ state_hash: stateHash(state), shop, taken_at: now })
    .onConflict((oc) => oc.column('state_hash').doNothing())
    .returning('state_hash')
    .executeTakeFirst();
  return taken !== undefined;
}

/**
 * Takes the callback's state (once: a replayed callback finds it taken) and stores the shop's
 * token, in one transaction. False, and nothing stored, when the state was taken already. What
 * the install carried (a claim, a plugin's challenge) is not confirmed here: a callback is what any
 * page can make a signed-in merchant's browser reach (Shopify sends staff of a store that has the
 * app straight back), so the staff are asked on a page of the service (insertConfirmationRequest).
 */
export async function completeInstall(
  db: Db,
  install: StoredTokens & { state: string; shop: string; scopes: string; now: Date; expiredBefore: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await takeOAuthState(trx, install.state, install.shop, install.now, install.expiredBefore))) return false;
    const tokens = tokenColumns(install);
    await trx
      .insertInto('shopify_shops')
      .values({ shop: install.shop, ...tokens, scopes: install.scopes, installed_at: install.now })
      .onConflict((oc) =>
        oc.column('shop').doUpdateSet({
          ...tokens,
          scopes: install.scopes,
          installed_at: install.now,
          uninstalled_at: null,
          disconnected_at: null,
          disconnect_reason: null,
          updated_at: install.now,
        }),
      )
      .execute();
    return true;
  });
}

/** What a verified callback asks the store's staff: a sign-up's claim, a plugin's challenge, or both. */
export interface ConfirmationRequest {
  shop: string;
  shopName: string;
  claim: { claimId: string; sessionId: string; email: string } | null;
  plugin: { challenge: string; platformId: string | null; platformName: string | null } | null;
  returnTo: string | null;
}

/** Notes the question, by the hash of the token its form carries; questions older than `expiredBefore` go. */
export async function insertConfirmationRequest(db: Db, token: string, request: ConfirmationRequest, now: Date, expiredBefore: Date) {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('shopify_confirmation_requests').where('created_at', '<=', expiredBefore).execute();
    await trx
      .insertInto('shopify_confirmation_requests')
      .values({
        token_hash: stateHash(token),
        shop: request.shop,
        shop_name: request.shopName,
        claim_id: request.claim?.claimId ?? null,
        claimant_session_id: request.claim?.sessionId ?? null,
        claimant_email: request.claim?.email ?? null,
        challenge: request.plugin?.challenge ?? null,
        platform_id: request.plugin?.platformId ?? null,
        platform_name: request.plugin?.platformName ?? null,
        return_to: request.returnTo,
        created_at: now,
      })
      .execute();
  });
}

/** The question the form's token names, if it was asked after `after` and is not answered yet. */
export async function findConfirmationRequest(db: Db, token: string, after: Date): Promise<ConfirmationRequest | undefined> {
  const row = await db
    .selectFrom('shopify_confirmation_requests')
    .selectAll()
    .where('token_hash', '=', stateHash(token))
    .where('created_at', '>', after)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    shop: row.shop,
    shopName: row.shop_name,
    claim:
      row.claim_id && row.claimant_session_id
        ? { claimId: row.claim_id, sessionId: row.claimant_session_id, email: row.claimant_email ?? '' }
        : null,
    plugin: row.challenge ? { challenge: row.challenge, platformId: row.platform_id, platformName: row.platform_name } : null,
    returnTo: row.return_to,
  };
}

/** Takes the question (once: a second answer finds none); false when it was taken before. */
export async function takeConfirmationRequest(db: Db, token: string): Promise<boolean> {
  const row = await db
    .deleteFrom('shopify_confirmation_requests')
    .where('token_hash', '=', stateHash(token))
    .returning('token_hash')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The store's staff confirmed that the claimant acts for the store: inside the embedded app (the
 * session token's staff member), or on the OAuth callback's page in the claimant's own session.
 */
export async function confirmOwnership(db: Db, claimId: string, shop: string, now: Date, staffId: string | null = null): Promise<void> {
  await db
    .insertInto('shopify_ownership_confirmations')
    .values({ claim_id: claimId, shop, confirmed_at: now, staff_id: staffId })
    .onConflict((oc) => oc.column('claim_id').doNothing())
    .execute();
}

/** Which of `claimIds` the store's staff confirmed already. */
export async function confirmedClaims(db: Db, shop: string, claimIds: string[]): Promise<Set<string>> {
  if (claimIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('shopify_ownership_confirmations')
    .select('claim_id')
    .where('shop', '=', shop)
    .where('claim_id', 'in', claimIds)
    .execute();
  return new Set(rows.map((row) => row.claim_id));
}

export async function ownershipConfirmed(db: Db, shop: string, claimId: string): Promise<boolean> {
  const row = await db
    .selectFrom('shopify_ownership_confirmations')
    .select('claim_id')
    .where('claim_id', '=', claimId)
    .where('shop', '=', shop)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The app left the store (uninstalled, or its token answered 401): the token goes, and with it
 * the plan (Shopify cancels the app's subscriptions on uninstall). True when this call changed it.
 */
export async function disconnectShop(
  db: Db,
  shop: string,
  how: 'uninstalled' | 'disconnected',
  now: Date,
  reason: string | null = null,
): Promise<boolean> {
  const row = await db
    .updateTable('shopify_shops')
    .set({
      access_token_encrypted: null,
      access_token_expires_at: null,
      refresh_token_encrypted: null,
      refresh_token_expires_at: null,
      disconnect_reason: reason,
      plan_approved_at: null,
      subscription_id: null,
      subscription_status: null,
      usage_line_item_id: null,
      usage_currency: null,
      pending_subscription_id: null,
      pending_confirmation_url: null,
      pending_return_url: null,
      ...(how === 'uninstalled' ? { uninstalled_at: now } : { disconnected_at: now }),
      updated_at: now,
    })
    .where('shop', '=', shop)
    .where('access_token_encrypted', 'is not', null)
    .returning('shop')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether Shopify told the service the app was uninstalled from the store (an app/uninstalled
 * delivery received since its last install): a token refused then is the uninstall, not a
 * store that lost the app's access otherwise.
 */
export async function uninstallDelivered(db: Db, shop: string): Promise<boolean> {
  const row = await db
    .selectFrom('shopify_webhook_deliveries as delivery')
    .innerJoin('shopify_shops as store', 'store.shop', 'delivery.shop')
    .select('delivery.webhook_id')
    .where('delivery.shop', '=', shop)
    .where('delivery.topic', '=', 'app/uninstalled')
    .where((eb) => eb.or([eb('store.installed_at', 'is', null), eb('delivery.received_at', '>=', eb.ref('store.installed_at'))]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * app/uninstalled for a store already recorded as having lost the app's access (a call met the
 * revoked token before the delivery was worked off): it is recorded as the uninstall it was, and
 * leaves support's list. True when this call changed it.
 */
export async function recordDisconnectAsUninstall(db: Db, shop: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('shopify_shops')
    .set({ uninstalled_at: now, disconnected_at: null, disconnect_reason: 'uninstalled', updated_at: now })
    .where('shop', '=', shop)
    .where('access_token_encrypted', 'is', null)
    .where('disconnected_at', 'is not', null)
    .returning('shop')
    .executeTakeFirst();
  return row !== undefined;
}

export interface Subscription {
  id: string;
  status: string;
  usageLineItemId: string | null;
  usageCurrency: string | null;
  /** The usage line item's capped amount, in minor units of usageCurrency. */
  usageCappedMinor: number | null;
}

/**
 * Records the plan as read back from the installation. `approved`: the plan is active (a pending
 * subscription is then spent); `newlyApproved`: this call made it so (the approval is announced
 * once, whichever of the webhook and the return came first).
 */
export async function recordSubscription(
  db: Db,
  shop: string,
  subscription: Subscription | null,
  now: Date,
): Promise<{ approved: boolean; newlyApproved: boolean }> {
  const active = subscription?.status === 'ACTIVE';
  const capped = subscription?.usageCappedMinor ?? null;
  // A raise asked of the merchant is over once the installation shows a cap at least that high.
  const capReached = sql`(${active}::boolean and ${capped}::bigint >= coalesce(cap_raise_minor, 0))`;
  const result = await sql<{ newly_approved: boolean }>`
    update shopify_shops set
      subscription_id = ${subscription?.id ?? null},
      subscription_status = ${subscription?.status ?? null},
      usage_line_item_id = ${subscription?.usageLineItemId ?? null},
      usage_currency = ${subscription?.usageCurrency ?? null},
      plan_approved_at = case when ${active}::boolean then coalesce(plan_approved_at, ${now}::timestamptz) else null end,
      pending_subscription_id = case when ${active}::boolean then null else pending_subscription_id end,
      pending_confirmation_url = case when ${active}::boolean then null else pending_confirmation_url end,
      pending_return_url = case when ${active}::boolean then null else pending_return_url end,
      cap_raise_confirmation_url = case when ${capReached}::boolean then null else cap_raise_confirmation_url end,
      cap_raise_requested_at = case when ${capReached}::boolean then null else cap_raise_requested_at end,
      cap_raise_minor = case when ${capReached}::boolean then null else cap_raise_minor end,
      updated_at = ${now}
    where shop = ${shop} and access_token_encrypted is not null
    returning (${active}::boolean and plan_approved_at = ${now}::timestamptz) as newly_approved`.execute(db);
  const row = result.rows[0];
  return { approved: row !== undefined && active, newlyApproved: row?.newly_approved ?? false };
}

/** The raise of the capped amount asked of the merchant: its confirmation URL, for the store's staff to open. */
export async function setCapRaise(db: Db, shop: string, raise: { confirmationUrl: string; cappedMinor: number }, now: Date) {
  await db
    .updateTable('shopify_shops')
    .set({
      cap_raise_confirmation_url: raise.confirmationUrl,
      cap_raise_minor: raise.cappedMinor,
      cap_raise_requested_at: now,
      updated_at: now,
    })
    .where('shop', '=', shop)
    .execute();
}

/** The subscription just created for the merchant to approve: reused while Shopify has it pending. */
export async function setPendingSubscription(
  db: Db,
  shop: string,
  pending: { subscriptionId: string; confirmationUrl: string; returnUrl: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('shopify_shops')
    .set({
      pending_subscription_id: pending.subscriptionId,
      pending_confirmation_url: pending.confirmationUrl,
      pending_return_url: pending.returnUrl,
      updated_at: now,
    })
    .where('shop', '=', shop)
    .execute();
}

/**
 * Takes the subscription waiting for the merchant's approval when it is the one named (once: the
 * pending columns are cleared), so the return from Shopify's charge page reads the plan back at
 * most once per subscription. False when the store has no such pending subscription.
 */
export async function takePendingSubscription(db: Db, shop: string, subscriptionId: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('shopify_shops')
    .set({ pending_subscription_id: null, pending_confirmation_url: null, pending_return_url: null, updated_at: now })
    .where('shop', '=', shop)
    .where('access_token_encrypted', 'is not', null)
    .where('pending_subscription_id', '=', subscriptionId)
    .returning('shop')
    .executeTakeFirst();
  return row !== undefined;
}

// --- webhook deliveries: deduplicated by Shopify's webhook and event ids, worked off as durable jobs ---

/**
 * Records a delivery unless its webhook id was seen, or its event was delivered before through
 * another subscription (same shop, topic and event id); true when it is new.
 */
export async function insertDelivery(
  db: Db,
  delivery: { webhookId: string; eventId: string | null; shop: string; topic: string; payload: unknown; now: Date },
): Promise<boolean> {
  const row = await db
    .insertInto('shopify_webhook_deliveries')
    .values({
      webhook_id: delivery.webhookId,
      event_id: delivery.eventId,
      shop: delivery.shop,
      topic: delivery.topic,
      payload: JSON.stringify(delivery.payload),
      received_at: delivery.now,
      next_attempt_at: delivery.now,
    })
    // Either key: the webhook id (a retry of this delivery) or the event (its delivery to another subscription).
    .onConflict((oc) => oc.doNothing())
    .returning('webhook_id')
    .executeTakeFirst();
  return row !== undefined;
}

export interface ClaimedDelivery {
  webhookId: string;
  shop: string;
  topic: string;
  payload: unknown;
  attempts: number;
  leaseId: string;
}

/** Claims the most overdue pending delivery with a lease (a dead worker's lease runs out and another takes it). */
export async function claimDueDelivery(db: Db, now: Date, leaseMs: number): Promise<ClaimedDelivery | undefined> {
  const leaseId = crypto.randomUUID();
  const result = await sql<{ webhook_id: string; shop: string; topic: string; payload: unknown; attempts: number }>`
    update shopify_webhook_deliveries
    set locked_until = ${new Date(now.getTime() + leaseMs)}, lease_id = ${leaseId}, attempts = attempts + 1
    where webhook_id = (
      select webhook_id from shopify_webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${now} and (locked_until is null or locked_until < ${now})
      order by next_attempt_at
      limit 1
      for update skip locked
    )
    returning webhook_id, shop, topic, payload, attempts`.execute(db);
  const row = result.rows[0];
  return row && { webhookId: row.webhook_id, shop: row.shop, topic: row.topic, payload: row.payload, attempts: row.attempts, leaseId };
}

/** The delivery is done: its payload (shoppers' data) is dropped, an answer for the merchant kept. */
export async function completeDelivery(db: Db, webhookId: string, leaseId: string, result: unknown, now: Date): Promise<boolean> {
  const done = await db
    .updateTable('shopify_webhook_deliveries')
    .set({
      status: 'done',
      payload: result === undefined ? null : JSON.stringify(result),
      completed_at: now,
      locked_until: null,
      lease_id: null,
      last_error: null,
    })
    .where('webhook_id', '=', webhookId)
    .where('lease_id', '=', leaseId)
    .where('locked_until', '>=', now)
    .executeTakeFirst();
  return done.numUpdatedRows > 0n;
}

export async function rescheduleDelivery(db: Db, webhookId: string, leaseId: string, at: Date, error: string, now: Date): Promise<boolean> {
  const done = await db
    .updateTable('shopify_webhook_deliveries')
    .set({ next_attempt_at: at, locked_until: null, lease_id: null, last_error: error })
    .where('webhook_id', '=', webhookId)
    .where('lease_id', '=', leaseId)
    .where('locked_until', '>=', now)
    .executeTakeFirst();
  return done.numUpdatedRows > 0n;
}

/** The delivery stops: no more attempts; support sees it with its last error (and may send it again). */
export async function failDelivery(db: Db, webhookId: string, leaseId: string, error: string, now: Date): Promise<boolean> {
  const done = await db
    .updateTable('shopify_webhook_deliveries')
    .set({ status: 'failed', failed_at: now, locked_until: null, lease_id: null, last_error: error })
    .where('webhook_id', '=', webhookId)
    .where('lease_id', '=', leaseId)
    .where('locked_until', '>=', now)
    .executeTakeFirst();
  return done.numUpdatedRows > 0n;
}

export interface FailedDelivery {
  webhookId: string;
  shop: string;
  topic: string;
  attempts: number;
  lastError: string | null;
  receivedAt: Date;
  failedAt: Date | null;
  bodyErasedAt: Date | null;
}

/** Deliveries that stopped, newest first, for support. */
export async function failedDeliveries(db: Db, limit: number): Promise<FailedDelivery[]> {
  const rows = await db
    .selectFrom('shopify_webhook_deliveries')
    .select(['webhook_id', 'shop', 'topic', 'attempts', 'last_error', 'received_at', 'failed_at', 'body_erased_at'])
    .where('status', '=', 'failed')
    .orderBy('failed_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    webhookId: row.webhook_id,
    shop: row.shop,
    topic: row.topic,
    attempts: row.attempts,
    lastError: row.last_error,
    receivedAt: row.received_at,
    failedAt: row.failed_at,
    bodyErasedAt: row.body_erased_at,
  }));
}

/**
 * Support sends a failed delivery through again (after fixing what failed it): a fresh round of
 * attempts. A delivery whose body was erased has nothing left to work off.
 */
export async function retryFailedDelivery(db: Db, webhookId: string, now: Date): Promise<'retried' | 'erased' | 'unknown'> {
  const done = await db
    .updateTable('shopify_webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, failed_at: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'failed')
    .where('body_erased_at', 'is', null)
    .executeTakeFirst();
  if (done.numUpdatedRows > 0n) return 'retried';
  const erased = await db
    .selectFrom('shopify_webhook_deliveries')
    .select('webhook_id')
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return erased ? 'erased' : 'unknown';
}

/**
 * The raw bodies of deliveries that stopped before `cutoff` are erased (they can hold a shopper's
 * name, address and e-mail); the row keeps the ids of what Shopify sent about (the order, the
 * refund and its order) beside its topic, shop, attempts and last error. Returns how many.
 */
export async function eraseStoppedDeliveryBodies(db: Db, cutoff: Date, now: Date): Promise<number> {
  const result = await sql`
    update shopify_webhook_deliveries
    set payload = jsonb_strip_nulls(jsonb_build_object('id', payload -> 'id', 'order_id', payload -> 'order_id')),
      body_erased_at = ${now}
    where status = 'failed' and failed_at < ${cutoff} and body_erased_at is null`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Stores that lost the app's access (not uninstalled): for support, with Shopify's reason. */
export async function disconnectedShops(
  db: Db,
  limit: number,
): Promise<Array<{ shop: string; reason: string | null; disconnectedAt: Date }>> {
  const rows = await db
    .selectFrom('shopify_shops')
    .select(['shop', 'disconnect_reason', 'disconnected_at'])
    .where('access_token_encrypted', 'is', null)
    .where('disconnected_at', 'is not', null)
    .orderBy('disconnected_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ shop: row.shop, reason: row.disconnect_reason, disconnectedAt: row.disconnected_at! }));
}

/** Connected stores asked to approve a higher capped amount that have not yet, oldest ask first (it has waited longest). */
export async function waitingCapRaises(db: Db, limit: number) {
  const rows = await db
    .selectFrom('shopify_shops')
    .select(['shop', 'cap_raise_confirmation_url', 'cap_raise_minor', 'usage_currency', 'cap_raise_requested_at'])
    .where('access_token_encrypted', 'is not', null)
    .where('cap_raise_confirmation_url', 'is not', null)
    .where('cap_raise_minor', 'is not', null)
    .where('usage_currency', 'is not', null)
    .orderBy('cap_raise_requested_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    shop: row.shop,
    confirmationUrl: row.cap_raise_confirmation_url!,
    cappedMinor: Number(row.cap_raise_minor),
    currency: row.usage_currency!,
    requestedAt: row.cap_raise_requested_at!,
  }));
}

// --- usage records: one per idempotency key ---

/** Notes the charge before it is sent; the key is also Shopify's idempotency key, so a retry charges once. */
/** Notes the usage record about to be charged (once per key); returns Shopify's id when it was charged before. */
export async function insertUsageRecord(
  db: Db,
  record: { idempotencyKey: string; shop: string; orderId: string; amountCents: number; currency: string },
): Promise<{ usageRecordId: string | null; amountMinor: number; currency: string }> {
  await db
    .insertInto('shopify_usage_records')
    .values({
      idempotency_key: record.idempotencyKey,
      shop: record.shop,
      order_id: record.orderId,
      amount_cents: record.amountCents,
      currency: record.currency,
    })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .execute();
  const row = await db
    .selectFrom('shopify_usage_records')
    .select(['usage_record_id', 'amount_cents', 'currency'])
    .where('idempotency_key', '=', record.idempotencyKey)
    .executeTakeFirstOrThrow();
  return { usageRecordId: row.usage_record_id, amountMinor: Number(row.amount_cents), currency: row.currency };
}

/** An order's commission in the shopper's currency (from Shopify's presentment money), kept for a charge in that currency. */
export async function noteOrderCommission(
  db: Db,
  commission: { shop: string; orderId: string; currency: string; commissionMinor: number },
) {
  await db
    .insertInto('shopify_order_commissions')
    .values({
      shop: commission.shop,
      order_id: commission.orderId,
      currency: commission.currency,
      commission_minor: commission.commissionMinor,
    })
    .onConflict((oc) => oc.columns(['shop', 'order_id', 'currency']).doNothing())
    .execute();
}

/** The order's commission in `currency`, when Shopify's amounts gave one. */
export async function orderCommissionIn(db: Db, shop: string, orderId: string, currency: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('shopify_order_commissions')
    .select('commission_minor')
    .where('shop', '=', shop)
    .where('order_id', '=', orderId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.commission_minor);
}

export async function setUsageRecordId(db: Db, idempotencyKey: string, usageRecordId: string): Promise<void> {
  await db
    .updateTable('shopify_usage_records')
    .set({ usage_record_id: usageRecordId })
    .where('idempotency_key', '=', idempotencyKey)
    .execute();
}

/**
 * shop/redact: everything the adapter holds about the shop goes (its token, plan, requests,
 * confirmations, usage records, and its other webhook deliveries).
 */
export async function eraseShop(db: Db, shop: string, keepWebhookId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('shopify_usage_records').where('shop', '=', shop).execute();
    await trx.deleteFrom('shopify_order_commissions').where('shop', '=', shop).execute();
    await trx.deleteFrom('shopify_ownership_confirmations').where('shop', '=', shop).execute();
    await trx.deleteFrom('shopify_oauth_states_taken').where('shop', '=', shop).execute();
    await trx.deleteFrom('shopify_confirmation_requests').where('shop', '=', shop).execute();
    await trx.deleteFrom('shopify_webhook_deliveries').where('shop', '=', shop).where('webhook_id', '<>', keepWebhookId).execute();
    await trx.deleteFrom('shopify_shops').where('shop', '=', shop).execute();
  });
}

/**
 * customers/redact: the shopper's data in deliveries not yet worked off goes with their payloads,
 * and so do the bodies of stopped deliveries that carry them (those stay listed for support).
 */
export async function dropPendingPayloadsOfCustomer(db: Db, shop: string, customerId: string, keepWebhookId: string): Promise<void> {
  await sql`
    update shopify_webhook_deliveries set payload = null, status = 'done', completed_at = now(), last_error = 'redacted'
    where shop = ${shop} and webhook_id <> ${keepWebhookId} and status = 'pending'
      and payload -> 'customer' ->> 'id' = ${customerId}`.execute(db);
  await sql`
    update shopify_webhook_deliveries set payload = null, body_erased_at = now()
    where shop = ${shop} and status = 'failed' and body_erased_at is null
      and payload -> 'customer' ->> 'id' = ${customerId}`.execute(db);
}
