import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { hashSecret, randomToken } from '../auth/keys.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from '../accounts/passwords.js';
import { looksLikeEmail, normalizeEmail } from '../accounts/users.js';
import * as dal from './dal.js';

/**
 * The store owner's sign-in at the sandbox commerce platform, which a real platform has of its
 * own: what proves that a person manages a store. A sandbox store is made up on first use, so
 * it has no owner until someone sets up its sign-in here; after that only that person gets in.
 */
const OWNER_COOKIE = 'sandbox_owner';
const OWNER_SESSION_MS = 2 * 3600_000;

/** Each store's session cookie is scoped to the store's pages, so one browser can run several stores. */
export function storePath(domain: string): string {
  return `/sandbox/stores/${encodeURIComponent(domain)}`;
}

export type OwnerSignIn = { outcome: 'signed_in'; token: string } | { outcome: 'rejected'; problem: string };

/** Signs the store's owner in, or sets up the sign-in of a store (already opened) that has none. */
export async function signInOwner(db: Db, domain: string, email: string, password: string, now = new Date()): Promise<OwnerSignIn> {
  const normalized = normalizeEmail(email);
  if (!looksLikeEmail(normalized)) return { outcome: 'rejected', problem: 'Enter an email address.' };
  if (password.length > MAX_PASSWORD_LENGTH) return { outcome: 'rejected', problem: 'The email or password is not correct.' };
  let owner = await dal.findOwner(db, domain);
  let created = false;
  if (!owner) {
    if (password.length < MIN_PASSWORD_LENGTH) return { outcome: 'rejected', problem: `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.` };
    created = await dal.insertOwnerIfAbsent(db, domain, normalized, await hashPassword(password));
    // Someone else set the sign-in up a moment before: check against theirs.
    if (!created) owner = await dal.findOwner(db, domain);
  }
  const valid = created || (owner !== undefined && owner.email === normalized && (await verifyPassword(owner.password_hash, password)));
  if (!valid) return { outcome: 'rejected', problem: 'The email or password is not correct.' };
  const token = randomToken(43);
  await dal.insertOwnerSession(db, { tokenHash: hashSecret(token), domain, expiresAt: new Date(now.getTime() + OWNER_SESSION_MS) });
  return { outcome: 'signed_in', token };
}

export function setOwnerCookie(reply: FastifyReply, domain: string, token: string, secure: boolean): void {
  reply.setCookie(OWNER_COOKIE, token, { path: storePath(domain), httpOnly: true, sameSite: 'lax', secure, maxAge: OWNER_SESSION_MS / 1000 });
}

export async function ownerSignedIn(db: Db, request: FastifyRequest, domain: string): Promise<boolean> {
  const token = request.cookies[OWNER_COOKIE];
  return token ? dal.ownerSessionValid(db, hashSecret(token), domain, new Date()) : false;
}
