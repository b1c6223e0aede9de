import type { Db } from '../../db/database.js';
import * as dal from './dal.js';

/**
 * What the Shopify routes ask of the platform's tables: an install from the service's redirect to
 * Shopify's callback, the service's question to the store's staff, and the webhook deliveries for
 * support. The routes call these, never dal.ts, so every write of the Shopify tables a request makes
 * is named here with its window and its one-time rule.
 */

/** How long an install may take from the service's redirect to Shopify's callback. */
const INSTALL_WINDOW_MS = 10 * 60_000;

/** How long the store's staff have to answer the service's question after the callback. */
const CONFIRMATION_WINDOW_MS = 15 * 60_000;

export type PendingInstall = dal.OAuthRequest;
export type StaffQuestion = dal.ConfirmationRequest;

/** Notes an install the service redirected to Shopify; false when too many are in flight (nothing written). */
export function startInstall(db: Db, state: string, install: PendingInstall, now: Date): Promise<boolean> {
  return dal.insertOAuthRequest(db, state, install, now, new Date(now.getTime() - INSTALL_WINDOW_MS));
}

/** The install a callback's state names, while its window is open. */
export function pendingInstall(db: Db, state: string, shop: string, now: Date): Promise<PendingInstall | undefined> {
  return dal.findOAuthRequest(db, state, shop, new Date(now.getTime() - INSTALL_WINDOW_MS));
}

/** Takes the install (once) and stores the shop's tokens; false, nothing written, when it was taken already. */
export function completeInstall(db: Db, install: Parameters<typeof dal.completeInstall>[1]): Promise<boolean> {
  return dal.completeInstall(db, install);
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
