import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { hashSecret, randomToken } from '../../shared/keys.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from '../../shared/passwords.js';
import { looksLikeEmail, normalizeEmail } from '../../shared/email.js';
import { checkedEmail } from '../../http/email.js';
import { badRequest } from '../../http/errors.js';
import { storeDomain } from '../../shared/domain.js';
import * as dal from './dal.js';
import type { SandboxCommerce } from './adapter.js';

/**
 * The store owner's sign-in at the sandbox commerce platform, which a real platform has of its
 * own: what proves that a person manages a store. A sandbox store is made up on first use, so a
 * store nobody knows has no owner until its first visitor sets up the sign-in. A store whose
 * brand is already in the network (a company record, demo data included) never gets its owner
 * that way: support sets up its sign-in (setSandboxOwner), so naming a brand's domain is never
 * enough to act for it (docs/security.md, "What proves that a person acts for a brand").
 */
const OWNER_COOKIE = 'sandbox_owner';
const OWNER_SESSION_MS = 2 * 3600_000;
/** Support's generated owner passwords: about 120 bits, typed once by a tester. */
const GENERATED_PASSWORD_LENGTH = 20;

/** Each store's session cookie is scoped to the store's pages, so one browser can run several stores. */
export function storePath(domain: string): string {
  return `/sandbox/stores/${encodeURIComponent(domain)}`;
}

/**
 * What the sign-in page offers: a store with an owner signs in; one without an owner whose
 * brand is in the network (`brandName`) waits for support; any other store is set up by its
 * first visitor.
 */
export async function ownerSignInState(db: Db, domain: string): Promise<{ hasOwner: boolean; brandName: string | undefined }> {
  const hasOwner = (await dal.findOwner(db, domain)) !== undefined;
  return { hasOwner, brandName: hasOwner ? undefined : await dal.brandNameOfDomain(db, domain) };
}

export type OwnerSignIn = { outcome: 'signed_in'; token: string } | { outcome: 'rejected'; status: 401 | 403; problem: string };

/** Why the first visitor of a known brand's store does not become its owner. */
export function supportSetsOwner(brandName: string): string {
  return (
    `${brandName} is a brand in the network already, so its store's owner sign-in is not given to whoever comes first: ` +
    'the support team sets it up (admin API or CLI, docs/support.md).'
  );
}

/**
 * Signs the store's owner in, or sets up the sign-in of a store nobody knows: one with no owner
 * and no brand in the network. A refusal writes nothing.
 */
export async function signInOwner(
  db: Db,
  adapter: SandboxCommerce,
  domain: string,
  email: string,
  password: string,
  now = new Date(),
): Promise<OwnerSignIn> {
  const normalized = normalizeEmail(email);
  if (!looksLikeEmail(normalized)) return { outcome: 'rejected', status: 401, problem: 'Enter an email address.' };
  const wrong = { outcome: 'rejected', status: 401, problem: 'The email or password is not correct.' } as const;
  if (password.length > MAX_PASSWORD_LENGTH) return wrong;
  let owner = await dal.findOwner(db, domain);
  let created = false;
  if (!owner) {
    const brand = await dal.brandNameOfDomain(db, domain);
    if (brand !== undefined) return { outcome: 'rejected', status: 403, problem: supportSetsOwner(brand) };
    if (password.length < MIN_PASSWORD_LENGTH)
      return { outcome: 'rejected', status: 401, problem: `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.` };
    await adapter.store(domain);
    created = await dal.insertOwnerOfUnknownStore(db, domain, normalized, await hashPassword(password));
    // Someone set the sign-in up a moment before (check against theirs), or the brand joined the network meanwhile.
    if (!created) {
      owner = await dal.findOwner(db, domain);
      if (!owner)
        return { outcome: 'rejected', status: 403, problem: supportSetsOwner((await dal.brandNameOfDomain(db, domain)) ?? domain) };
    }
  }
  const valid = created || (owner !== undefined && owner.email === normalized && (await verifyPassword(owner.password_hash, password)));
  if (!valid) return wrong;
  const token = randomToken(43);
  await dal.insertOwnerSession(db, { tokenHash: hashSecret(token), domain, expiresAt: new Date(now.getTime() + OWNER_SESSION_MS) });
  return { outcome: 'signed_in', token };
}

export function setOwnerCookie(reply: FastifyReply, domain: string, token: string, secure: boolean): void {
  reply.setCookie(OWNER_COOKIE, token, {
    path: storePath(domain),
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: OWNER_SESSION_MS / 1000,
  });
}

export async function ownerSignedIn(db: Db, request: FastifyRequest, domain: string): Promise<boolean> {
  const token = request.cookies[OWNER_COOKIE];
  return token ? dal.ownerSessionValid(db, hashSecret(token), domain, new Date()) : false;
}

export interface SandboxOwnerSet {
  domain: string;
  email: string;
  /** Generated, shown once; only its Argon2id hash is kept. */
  password: string;
}

/**
 * Support sets up (or replaces) the owner sign-in of a sandbox store, whatever brand it has: the
 * one way a store whose brand is in the network gets an owner. Ends the sessions of any earlier
 * owner. Admin API `POST /admin/sandbox/stores/{domain}/owner` and `npm run cli -- sandbox-owner set`.
 */
export async function setSandboxOwner(db: Db, adapter: SandboxCommerce, rawDomain: string, rawEmail: string): Promise<SandboxOwnerSet> {
  const domain = storeDomain(rawDomain);
  if (!domain) throw badRequest('domain must be a store domain such as shop.example');
  const email = checkedEmail(rawEmail);
  const password = randomToken(GENERATED_PASSWORD_LENGTH);
  await adapter.store(domain);
  await dal.replaceOwner(db, domain, email, await hashPassword(password));
  return { domain, email, password };
}

/**
 * The demo brand's store owner sign-in on a test or dev host (the start banner prints it): set up
 * only when the store has no owner yet, never over one support set. True when these credentials
 * sign in to the store now.
 */
export async function ensureDemoStoreOwner(
  db: Db,
  adapter: SandboxCommerce,
  owner: { domain: string; email: string; password: string },
): Promise<boolean> {
  await adapter.store(owner.domain);
  if (!(await dal.findOwner(db, owner.domain))) {
    await dal.insertOwnerIfNone(db, owner.domain, normalizeEmail(owner.email), await hashPassword(owner.password));
  }
  const current = await dal.findOwner(db, owner.domain);
  return current?.email === normalizeEmail(owner.email) && (await verifyPassword(current.password_hash, owner.password));
}
