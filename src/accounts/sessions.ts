import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { cookieOptions, CSRF_COOKIE, type CookiePolicy } from '../shared/cookies.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import * as dal from './dal.js';

export const SESSION_COOKIE = 'svc_session';
export const SESSION_LIFETIME_MS = 12 * 3600_000;

/** A new random session: the cookie holds the token, the database only its hash. */
export async function startSession(db: Db, reply: FastifyReply, policy: CookiePolicy, userId: string, now = new Date()): Promise<void> {
  const token = randomToken(43);
  await dal.insertSession(db, { userId, tokenHash: hashSecret(token), expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) });
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(policy, SESSION_LIFETIME_MS / 1000));
  // A fresh CSRF token with every session, so a token seen before sign-in is worthless after it.
  reply.setCookie(CSRF_COOKIE, randomToken(), cookieOptions(policy));
}

/** The signed-in account, including one whose claim of a store still waits for the owner. */
export async function currentAccount(db: Db, request: FastifyRequest): Promise<dal.SessionAccount | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  return dal.findSessionAccount(db, hashSecret(token), new Date());
}

/** The signed-in account when it acts for a brand: an unverified account cannot act for any. */
export async function currentUser(db: Db, request: FastifyRequest): Promise<dal.SessionUser | undefined> {
  const account = await currentAccount(db, request);
  return account && actsForBrand(account) ? account : undefined;
}

export function actsForBrand(account: dal.SessionAccount): account is dal.SessionUser {
  return account.companyId !== null;
}

export async function endSession(db: Db, request: FastifyRequest, reply: FastifyReply, policy: CookiePolicy): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token) await dal.revokeSession(db, hashSecret(token));
  reply.clearCookie(SESSION_COOKIE, cookieOptions(policy));
}

/** Who asks for a store, by the signed-in session that made the claim. */
export interface Claimant {
  sessionId: string;
  email: string;
}

/**
 * The signed-in account, when `claimId` is its own claim of `domain` still waiting for the
 * owner: a commerce platform's confirmation of a claim is taken only in a flow its claimant
 * started, in the claimant's own signed-in browser (issue 23).
 */
export async function claimantOf(db: Db, request: FastifyRequest, claimId: string, domain: string): Promise<Claimant | undefined> {
  const account = await currentAccount(db, request);
  if (!account || account.companyId !== null) return undefined;
  if (!(await dal.isPendingClaimOf(db, { claimId, userId: account.userId, domain }))) return undefined;
  return { sessionId: account.sessionId, email: account.email };
}
