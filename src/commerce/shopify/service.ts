import type { Db } from '../../db/database.js';
import * as dal from './dal.js';

/**
 * What the Shopify routes ask of the platform's tables: the callback of an install (its state taken
 * once; the start of an install writes nothing), the service's question to the store's staff, and the webhook deliveries for
 * support. The routes call these, never dal.ts, so every write of the Shopify tables a request makes
 * is named here with its window and its one-time rule.
 */

/** How long an install may take from the service's redirect to Shopify's callback. */
export const INSTALL_WINDOW_MS = 10 * 60_000;

/** How long the staff have to answer the service's question after the callback. */
const CONFIRMATION_WINDOW_MS = 15 * 60_000;

export type PendingInstall = dal.OAuthRequest;
export type StaffQuestion = dal.ConfirmationRequest;

const windowStart = (now: Date) => new Date(now.getTime() - INSTALL_WINDOW_MS);

/** Whether a callback's state was taken already (installed, or spent by a refusal): its replay is refused. */
export function callbackStateTaken(db: Db, state: string, now: Date): Promise<boolean> {
  return dal.oauthStateTaken(db, state, windowStart(now));
}

/**
 * Spends the state of a callback Shopify signed that the service refused (another browser, another
 * session, a state cookie run out): the same callback replayed anywhere finds it taken. Its code,
 * signed with that state, is then of no use to anyone.
 */
export async function spendCallbackState(db: Db, state: string, shop: string, now: Date): Promise<void> {
  await dal.takeOAuthState(db, state, shop, now, windowStart(now));
}

/** Takes the callback's state (once) and stores the shop's tokens; false, nothing written, when it was taken already. */
export function completeInstall(db: Db, install: Omit<Parameters<typeof dal.completeInstall>[1], 'expiredBefore'>): Promise<boolean> {
  return dal.completeInstall(db, { ...install, expiredBefore: windowStart(install.now) });
}

/**
 * Whether the return from Shopify's charge page names the subscription the store waits on (by the
 * `charge_id` Shopify appends): taken once, so only that first return reads the plan back.
 */
export function takeReturnedSubscription(db: Db, shop: string, chargeId: string | undefined, now: Date): Promise<boolean> {
  if (chargeId === undefined || !/^[0-9]{1,20}$/.test(chargeId)) return Promise.resolve(false);
  return dal.takePendingSubscription(db, shop, `gid://shopify/AppSubscription/${chargeId}`, now);
}

/** Keeps the question a verified callback shows the store's staff, under the page's token. */
export async function askStaff(db: Db, token: string, question: StaffQuestion, now: Date): Promise<void> {
  await dal.insertConfirmationRequest(db, token, question, now, new Date(now.getTime() - CONFIRMATION_WINDOW_MS));
}

/** The question a confirmation page's token names, while its window is open. */
export function pendingQuestion(db: Db, token: string, now: Date): Promise<StaffQuestion | undefined> {
  return dal.findConfirmationRequest(db, token, new Date(now.getTime() - CONFIRMATION_WINDOW_MS));
}

/**
 * Takes the staff's answer, once: false when the question was answered already. A confirmed claim
 * records the owner's confirmation in the same transaction, so a question is never used up
 * without the confirmation it gave.
 */
export function answerStaffQuestion(
  db: Db,
  answer: { token: string; question: StaffQuestion; decision: 'confirm' | 'decline'; now: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await dal.takeConfirmationRequest(trx, answer.token))) return false;
    const claim = answer.question.claim;
    if (answer.decision === 'confirm' && claim) await dal.confirmOwnership(trx, claim.claimId, answer.question.shop, answer.now);
    return true;
  });
}

/** Which of the claims the store's staff confirmed already. */
export function confirmedClaims(db: Db, shop: string, claimIds: string[]): Promise<Set<string>> {
  return dal.confirmedClaims(db, shop, claimIds);
}

/** The store's staff, proved by their session token inside the embedded app, confirmed a claim of the store. */
export function confirmClaimAtHome(db: Db, confirmation: { claimId: string; shop: string; staffId: string; now: Date }): Promise<void> {
  return dal.confirmOwnership(db, confirmation.claimId, confirmation.shop, confirmation.now, confirmation.staffId);
}

/**
 * What support looks at: stores that lost the app's access and deliveries that stopped, newest
 * first, and stores whose held commissions wait for the merchant to approve a higher cap, oldest first.
 */
export async function attention(db: Db, limit: number) {
  const [stores, deliveries, capRaises] = await Promise.all([
    dal.disconnectedShops(db, limit),
    dal.failedDeliveries(db, limit),
    dal.waitingCapRaises(db, limit),
  ]);
  return { stores, deliveries, capRaises };
}

/**
 * Gives a stopped delivery a fresh round of attempts: 'unknown' when no stopped delivery has that
 * id, 'erased' when its body was erased (nothing is left to work off).
 */
export function retryDelivery(db: Db, webhookId: string, now: Date): Promise<'retried' | 'erased' | 'unknown'> {
  return dal.retryFailedDelivery(db, webhookId, now);
}

/**
 * Records a verified delivery unless its webhook id was seen or its event came through another
 * subscription (same shop, topic and event id); true when it is new.
 */
export function recordDelivery(
  db: Db,
  delivery: { webhookId: string; eventId: string | null; shop: string; topic: string; payload: unknown; now: Date },
) {
  return dal.insertDelivery(db, delivery);
}
