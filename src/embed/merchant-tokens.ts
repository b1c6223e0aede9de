import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { hashSecret, isSecretHash, randomToken } from '../shared/keys.js';
import { ApiError } from '../http/errors.js';
import * as dal from './dal.js';

/**
 * What proves that a plugin call comes from the store's merchant (docs/plugin.md, "Acting for
 * the store"). Each app page the service serves gets a random secret; the hash of it (the
 * challenge) rides as the state of the page's links to the commerce platform. When the store's
 * owner, signed in there, finishes the action, the platform hands the state back and the service
 * records the challenge as confirmed for the store. The app then trades its secret for a
 * short-lived token bound to the store and platform, which its state-changing calls carry. The
 * secret and the token only travel in POST bodies and headers to the service's own origin; the
 * database holds hashes only.
 */

/** A prefix of its own, so the log redaction and the secret searches of the tests know it. */
export const MERCHANT_TOKEN_PREFIX = 'svc_store_';
export const MERCHANT_TOKEN_LIFETIME_MS = 3_600_000;
/** How long after the owner's confirmation the app may still trade its secret for a token. */
export const CONFIRMATION_WINDOW_MS = 15 * 60_000;

const BEARER = /^Bearer (svc_store_[A-Za-z0-9]{43})$/;

export interface MerchantProof {
  /** Stays in the app page; traded for a token once the owner confirmed. */
  secret: string;
  /** The hash of the secret: the state of the page's links to the commerce platform. */
  challenge: string;
}

export function newMerchantProof(): MerchantProof {
  const secret = randomToken(43);
  return { secret, challenge: hashSecret(secret) };
}

/** A challenge is the hash of the app's secret. */
export const isChallenge = isSecretHash;

/** The commerce platform's `merchant_confirmed` event; a state that is no challenge of ours is ignored. */
export async function recordConfirmation(db: Db, domain: string, state: string, now = new Date()): Promise<void> {
  if (!isChallenge(state)) return;
  await dal.recordMerchantConfirmation(db, domain, state, now, new Date(now.getTime() - CONFIRMATION_WINDOW_MS));
}

const notConfirmed = () =>
  new ApiError(
    401,
    'not_confirmed',
    "the store's owner has not confirmed this plugin at the commerce platform (or the confirmation ran out): confirm at your store",
  );

/** Trades the app's secret for a store-bound token once the owner confirmed its challenge; 401 otherwise. */
export async function exchangeSecret(
  db: Db,
  store: { platformId: string; domain: string },
  secret: string,
  now = new Date(),
): Promise<{ token: string; expiresAt: string }> {
  const token = MERCHANT_TOKEN_PREFIX + randomToken(43);
  const expiresAt = new Date(now.getTime() + MERCHANT_TOKEN_LIFETIME_MS);
  const exchanged = await dal.exchangeConfirmation(db, {
    challenge: hashSecret(secret),
    domain: store.domain,
    platformId: store.platformId,
    tokenHash: hashSecret(token),
    confirmedAfter: new Date(now.getTime() - CONFIRMATION_WINDOW_MS),
    expiresAt,
    now,
  });
  if (!exchanged) throw notConfirmed();
  return { token, expiresAt: expiresAt.toISOString() };
}

/**
 * Whether a link's challenge proves the store's merchant: the owner confirmed it at the commerce
 * platform, and its app has not traded it yet or holds a live token traded for it. For links the
 * browser follows (a plan approval), which carry no token.
 */
export function challengeConfirmed(db: Db, domain: string, challenge: string, now = new Date()): Promise<boolean> {
  return dal.challengeConfirmed(db, { domain, challenge, confirmedAfter: new Date(now.getTime() - CONFIRMATION_WINDOW_MS), now });
}

/**
 * 401 unless the request carries (Authorization: Bearer) a live token bound to this store and
 * platform. Looked up by its hash: no plaintext is compared.
 */
export async function requireMerchantToken(
  db: Db,
  request: FastifyRequest,
  store: { platformId: string; domain: string },
  now = new Date(),
): Promise<void> {
  const match = BEARER.exec(request.headers.authorization ?? '');
  const valid = match !== null && (await dal.merchantTokenValid(db, { tokenHash: hashSecret(match[1]!), ...store }, now));
  if (!valid) {
    throw new ApiError(
      401,
      'unauthorized',
      "this call needs the store's token, which the plugin gets once the store's owner confirms at the commerce platform",
    );
  }
}
