import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { noCommercePlatform } from '../commerce/registry.js';
import { ApiError, badRequest } from '../http/errors.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import { storeDomain } from '../shared/domain.js';
import { importCustomerHistory } from '../orders/service.js';
import { companyForClaim, storeDomainOf } from '../companies/service.js';
import { inTransaction, type Publisher } from '../service-context.js';
import * as dal from './dal.js';
import { hashPassword } from '../shared/passwords.js';
import { checkedEmail } from '../http/email.js';
import { checkPassword } from './users.js';
import type { Mailer, OutgoingMail } from './mail.js';

type ClaimAdapter = Pick<
  CommerceAdapter,
  'platformNameOf' | 'ownershipSteps' | 'requestOwnershipConfirmation' | 'ownershipAnswer' | 'subscribeToOrders' | 'pastOrders'
>;

export interface SignUpContext {
  db: Db;
  /** A confirmed claim may create the store's brand, which the offers caches hear about. */
  bus: Publisher;
  /** The commerce platform that proves store ownership; null on a host with none (prod until one is configured). */
  adapter: ClaimAdapter | null;
  /** Sign-up mails the address its link; undefined on a prod host without SMTP_URL, where nobody can sign up. */
  mailer: Mailer | undefined;
  baseUrl: string;
  log: FastifyBaseLogger;
}

/** Only the store's commerce platform proves who acts for a store: without one, no store can be claimed. */
function claimAdapter(ctx: SignUpContext): ClaimAdapter {
  if (!ctx.adapter)
    throw noCommercePlatform('a store cannot be claimed here yet: join your brand with an invitation code from a member of its staff');
  return ctx.adapter;
}

const INVITATION_LIFETIME_MS = 7 * 86_400_000;
/** Where the store owner comes back to after answering at the commerce platform. */
const CLAIM_RETURN_PATH = '/dashboard';

export interface BrandInput {
  businessName: string;
  domain: string;
  categories?: string[] | undefined;
}

/** What an account without a brand sees of its claim. */
export interface ClaimView {
  domain: string;
  businessName: string;
  status: 'pending' | 'declined' | 'refused';
  /** Where the store's owner confirms, at the commerce platform; null when the platform did not answer yet. */
  confirmUrl: string | null;
  message: string;
}

const brandHasStaff = () =>
  new ApiError(
    409,
    'brand_has_staff',
    'the brand of this store already has staff accounts: ask one of them for an invitation code (Integrations, Team)',
  );

/** The claim a brand sign-up makes, checked before anything is written. */
async function checkedClaim(db: Db, brand: BrandInput): Promise<dal.NewClaim> {
  const businessName = brand.businessName.trim();
  if (businessName === '') throw badRequest('brand.businessName must not be empty');
  const given = storeDomain(brand.domain);
  if (!given) throw badRequest('brand.domain must be a store domain such as shop.example');
  // A store's own domain (brand.com) is a claim of the store it is linked to (brand.myshopify.com): its owner confirms there.
  const domain = await storeDomainOf({ db }, given);
  if ((await dal.findCompanyByDomain(db, domain))?.hasStaff) throw brandHasStaff();
  return { domain, businessName, categories: [...new Set((brand.categories ?? []).map((category) => category.trim()).filter(Boolean))] };
}

function viewOf(claim: dal.ClaimRow, platformName: string, steps: string): ClaimView | null {
  const base = { domain: claim.domain, businessName: claim.business_name, confirmUrl: claim.confirm_url };
  switch (claim.status) {
    case 'pending':
      return {
        ...base,
        status: 'pending',
        message: steps,
      };
    case 'declined':
      return { ...base, status: 'declined', confirmUrl: null, message: `The owner of ${claim.domain} declined at ${platformName}.` };
    case 'refused':
      return {
        ...base,
        status: 'refused',
        confirmUrl: null,
        message: 'The brand of this store already has staff accounts: ask one of them for an invitation code.',
      };
    case 'verified':
      return null;
  }
}

/**
 * Asks the commerce platform for the owner's confirmation. A platform that does not answer
 * leaves the claim without an address; checking the claim later asks again.
 */
async function requestConfirmation(ctx: SignUpContext, claim: { id: string; domain: string }, email: string): Promise<string | null> {
  try {
    const url = await claimAdapter(ctx).requestOwnershipConfirmation(claim.domain, {
      claimId: claim.id,
      requestedBy: email,
      returnTo: CLAIM_RETURN_PATH,
    });
    await dal.setClaimConfirmUrl(ctx.db, claim.id, url);
    return url;
  } catch (error) {
    ctx.log.warn({ err: error, domain: claim.domain }, 'the commerce platform did not take an ownership confirmation request');
    return null;
  }
}

async function claimView(ctx: SignUpContext, userId: string): Promise<ClaimView | null> {
  const claim = await dal.latestClaim(ctx.db, userId);
  if (!claim) return null;
  const platformName = ctx.adapter?.platformNameOf(claim.domain) ?? "the store's commerce platform";
  const steps = ctx.adapter?.ownershipSteps(claim.domain) ?? `Confirm at ${platformName} that you act for ${claim.domain}.`;
  return viewOf(claim, platformName, steps);
}

/** How long a sign-up's link works. */
export const SIGN_UP_LINK_LIFETIME_MS = 24 * 3_600_000;
/** Sign-ups an address keeps waiting at once: mailing sign-ups to one address cannot grow the table. */
const SIGN_UP_REQUESTS_PER_EMAIL = 5;
/** The dashboard's screen that finishes a sign-up; the token rides in the fragment, which no server or log sees. */
export const FINISH_SIGN_UP_PATH = '/dashboard#/finish-sign-up/';

const SIGN_UP_SENT_MESSAGE =
  `We sent a mail to the address you gave. Open the link in it within ${SIGN_UP_LINK_LIFETIME_MS / 3_600_000} hours ` +
  'to choose your password and finish signing up.';

/**
 * What a sign-up asks for. No password: whoever opens the mailed link, and so proves the address,
 * chooses it there (finishSignUp), never whoever typed the address (issue 44).
 */
export interface SignUpInput {
  email: string;
  brand?: BrandInput | undefined;
  invitationCode?: string | undefined;
}

/** The answer to every sign-up that passed its checks, whether or not the address has an account. */
export interface SignUpSent {
  sent: true;
  message: string;
}

function finishSignUpMail(to: string, token: string, baseUrl: string): OutgoingMail {
  return {
    to,
    subject: 'Finish creating your Partner Collaboration account',
    text:
      `Someone asked to create a brand dashboard account with this address (${to}).\n\n` +
      `To finish, open this link, choose your password and "Create my account":\n\n${baseUrl}${FINISH_SIGN_UP_PATH}${token}\n\n` +
      `The link works once, for ${SIGN_UP_LINK_LIFETIME_MS / 3_600_000} hours. ` +
      'If you did not ask for it, ignore this message: no account is made.\n',
  };
}

function accountExistsMail(to: string, baseUrl: string): OutgoingMail {
  return {
    to,
    subject: 'Someone tried to sign up with your address',
    text:
      `Someone tried to create a brand dashboard account with your address (${to}), which already has one, ` +
      'so nothing was created and your account is unchanged.\n\n' +
      `If it was you, sign in at ${baseUrl}/dashboard, or choose "Reset password" there if you forgot your password.\n\n` +
      'If it was not you, ignore this message.\n',
  };
}

const emailTaken = (email: string) => new ApiError(409, 'email_taken', `a user with email ${email} already exists: sign in instead`);

/**
 * Signs up, in two steps so that the answer never tells whether the address has an account
 * (issue 23), and so that whoever proves the address chooses the password (issue 44). This first
 * step checks everything that does not depend on the address (the invitation code without
 * spending it, the claimed store), then keeps the sign-up waiting for its link unless the address
 * has an account, in one transaction that runs the same statements either way; it answers every
 * sign-up alike, and only then does the mail leave: a free address gets a link that finishes the
 * sign-up (finishSignUp), an address with an account a warning to its owner, with nothing written
 * for it. No password is asked here: one given with the address would be the choice of whoever
 * typed it, and the account would be theirs once its owner confirmed the link.
 */
export async function signUp(ctx: SignUpContext, input: SignUpInput, now = new Date()): Promise<SignUpSent> {
  if ((input.brand === undefined) === (input.invitationCode === undefined)) {
    throw badRequest("send either brand (to claim your store) or invitationCode (to join your team's brand)");
  }
  if (input.brand !== undefined) claimAdapter(ctx);
  const mailer = ctx.mailer;
  if (!mailer) throw new ApiError(503, 'service_unavailable', 'sign-up confirms the address by email, which this host cannot send yet');
  const email = checkedEmail(input.email);
  const invitationCodeHash = input.invitationCode === undefined ? null : hashSecret(input.invitationCode);
  if (invitationCodeHash !== null && !(await dal.invitationUsable(ctx.db, invitationCodeHash, now))) throw invalidInvitation();
  const claim = input.brand === undefined ? null : await checkedClaim(ctx.db, input.brand);
  const token = randomToken(43);
  const expiresAt = new Date(now.getTime() + SIGN_UP_LINK_LIFETIME_MS);
  // The address is looked up inside the insert, before the answer: a free and a taken address do
  // the same work, so neither the answer's time nor the next request's wait for PGlite's one
  // connection tells them apart (issue 44). After the answer only the one mail goes, either way.
  const waiting = await dal.insertSignUpRequestUnlessTaken(
    ctx.db,
    { tokenHash: hashSecret(token), email, invitationCodeHash, claim, expiresAt },
    SIGN_UP_REQUESTS_PER_EMAIL,
    now,
  );
  const mail = waiting ? finishSignUpMail(email, token, ctx.baseUrl) : accountExistsMail(email, ctx.baseUrl);
  void sendQuietly(ctx, mailer, mail);
  // Not even the address is echoed: the answers to a taken and a free address are the same bytes.
  return { sent: true, message: SIGN_UP_SENT_MESSAGE };
}

/** A mail that cannot leave is logged by its kind only (a transport error may quote the message, and so its link). */
async function sendQuietly(ctx: SignUpContext, mailer: Mailer, mail: OutgoingMail): Promise<void> {
  try {
    await mailer.send(mail);
  } catch (error) {
    const code = error instanceof Error ? ((error as Error & { code?: string }).code ?? error.name) : 'unknown';
    ctx.log.error({ mailer: mailer.kind, code }, 'could not send a sign-up mail');
  }
}

/**
 * The second step: the link's token, answered with a POST from the page it opens together with the
 * password its opener chooses there, makes the account: the person who proves the address by
 * opening the mail is the one who chooses its password. With an invitation code, the account joins
 * that brand at once (the code is spent now); with a brand, the account is created without one and
 * claims the store: it acts for the brand only once the store's owner confirms through the
 * commerce platform (checkClaim). The link works once; a password out of bounds is refused before
 * the link is looked at, and a refusal (the code used meanwhile, the store's brand staffed
 * meanwhile) writes nothing.
 */
export async function finishSignUp(
  ctx: SignUpContext,
  input: { token: string; password: string },
  now = new Date(),
): Promise<{ userId: string; companyId: string | null; claim: ClaimView | null }> {
  checkPassword(input.password);
  // Hashed before the transaction: the memory-hard hash takes a moment, and no row waits for it.
  const passwordHash = await hashPassword(input.password);
  const created = await ctx.db.transaction().execute(async (trx) => {
    const request = await dal.takeSignUpRequest(trx, hashSecret(input.token), now);
    if (!request) throw badRequest('this sign-up link is unknown, used or expired: sign up again', 'invalid_token');
    if (request.invitationCodeHash !== null) {
      const companyId = await takeInvitationOrRefuse(trx, request.invitationCodeHash, now);
      const userId = await dal.insertUser(trx, { companyId, email: request.email, displayName: null, passwordHash });
      if (!userId) throw emailTaken(request.email);
      return { userId, companyId, claim: null };
    }
    claimAdapter(ctx);
    const claim = request.claim!;
    if ((await dal.findCompanyByDomain(trx, claim.domain))?.hasStaff) throw brandHasStaff();
    const made = await dal.insertUserWithClaim(trx, { email: request.email, passwordHash }, claim);
    if (!made) throw emailTaken(request.email);
    return { userId: made.userId, companyId: null, claim: { id: made.claimId, domain: claim.domain, email: request.email } };
  });
  if (created.claim === null) return { userId: created.userId, companyId: created.companyId, claim: null };
  await requestConfirmation(ctx, created.claim, created.claim.email);
  return { userId: created.userId, companyId: null, claim: await claimView(ctx, created.userId) };
}

/** The claim of an account without a brand, as it stands (no call to the platform). */
export function currentClaim(ctx: SignUpContext, account: dal.SessionAccount): Promise<ClaimView | null> {
  return account.companyId === null ? claimView(ctx, account.userId) : Promise.resolve(null);
}

/**
 * Asks the commerce platform whether the store's owner answered, and settles the claim: on
 * confirmation the account joins or creates the brand, the service takes in the store's
 * customers from its order history and subscribes to its orders.
 */
export async function checkClaim(
  ctx: SignUpContext,
  account: dal.SessionAccount,
  now = new Date(),
): Promise<{ companyId: string | null; claim: ClaimView | null }> {
  if (account.companyId !== null) return { companyId: account.companyId, claim: null };
  const claim = await dal.latestClaim(ctx.db, account.userId);
  if (!claim) return { companyId: null, claim: null };
  if (claim.status === 'pending') {
    const adapter = claimAdapter(ctx);
    if (claim.confirm_url === null) {
      await requestConfirmation(ctx, claim, account.email);
      return { companyId: null, claim: await claimView(ctx, account.userId) };
    }
    const answer = await adapter.ownershipAnswer(claim.domain, claim.id);
    if (answer === 'declined') await dal.declineClaim(ctx.db, claim.id, now);
    if (answer === 'confirmed') {
      // The store's side first, both idempotent: should the platform fail here, the claim stays
      // pending and the next check does it all again, instead of a brand without its orders.
      await importCustomerHistory(ctx.db, claim.domain, await adapter.pastOrders(claim.domain, now));
      await adapter.subscribeToOrders(claim.domain);
      const settled = await settleConfirmedClaim(ctx, claim, now);
      if (settled.outcome === 'joined' || settled.outcome === 'created') return { companyId: settled.companyId, claim: null };
    }
  }
  return { companyId: null, claim: await claimView(ctx, account.userId) };
}

/** How many waiting claims the store's staff see at once: a flood of sign-ups cannot grow their page. */
const CLAIMS_SHOWN_TO_STORE = 10;

/** A claim of a store as its staff see it, where the commerce platform proves who they are (the Shopify app home). */
export interface ClaimAskingStore {
  claimId: string;
  email: string;
  businessName: string;
}

/** The claims of `domain` waiting for its owner, oldest first. */
export function claimsAskingStore(db: Db, domain: string): Promise<ClaimAskingStore[]> {
  return dal.pendingClaimsOfStore(db, domain, CLAIMS_SHOWN_TO_STORE);
}

/** Whether `claimId` is a claim of `domain` its owner may still confirm. */
export function claimAsksStore(db: Db, claimId: string, domain: string): Promise<boolean> {
  return dal.isPendingClaimOfStore(db, claimId, domain);
}

/** The store's staff declined the claim (the claimant's page says so); false when it was not waiting for them. */
export function declineClaimAtStore(db: Db, claimId: string, domain: string, now = new Date()): Promise<boolean> {
  return dal.declineClaimOfStore(db, claimId, domain, now);
}

type ClaimSettlement = { outcome: 'joined' | 'created'; companyId: string } | { outcome: 'refused' } | { outcome: 'settled_before' };

/**
 * Settles a claim the store owner confirmed, in one transaction: the account joins the company
 * that holds the domain when nobody acts for it yet (one a plugin onboarding imported, say), or
 * a new company is made for it; a company that already has staff is joined by invitation only,
 * so the claim is refused. The company is locked, so two confirmed claims cannot both join.
 */
async function settleConfirmedClaim(ctx: SignUpContext, claim: dal.ClaimRow, now: Date): Promise<ClaimSettlement> {
  return inTransaction(ctx, async (tx) => {
    if (!(await dal.verifyClaim(tx.db, claim.id, now))) return { outcome: 'settled_before' };
    const { companyId, created } = await companyForClaim(tx, {
      newCompanyId: crypto.randomUUID(),
      domain: claim.domain,
      businessName: claim.business_name,
      categories: claim.categories,
    });
    if (!created && (await dal.companyHasStaff(tx.db, companyId))) {
      await dal.refuseClaim(tx.db, claim.id);
      return { outcome: 'refused' };
    }
    await dal.setClaimantCompany(tx.db, claim.user_id, companyId);
    return { outcome: created ? 'created' : 'joined', companyId };
  });
}

const alreadyHasBrand = () => new ApiError(409, 'conflict', 'your account already acts for a brand');

function requireBrandless(account: dal.SessionAccount): void {
  if (account.companyId !== null) throw alreadyHasBrand();
}

/** A new claim for an account whose last one was declined or refused (or to claim another store). */
export async function startClaim(ctx: SignUpContext, account: dal.SessionAccount, brand: BrandInput): Promise<ClaimView | null> {
  requireBrandless(account);
  claimAdapter(ctx);
  const claim = await checkedClaim(ctx.db, brand);
  const claimId = await ctx.db.transaction().execute((trx) => dal.insertClaim(trx, account.userId, claim));
  await requestConfirmation(ctx, { id: claimId, domain: claim.domain }, account.email);
  return claimView(ctx, account.userId);
}

/** An account without a brand joins one with a member's invitation code. */
export async function joinWithInvitation(ctx: SignUpContext, account: dal.SessionAccount, code: string, now = new Date()): Promise<string> {
  requireBrandless(account);
  return ctx.db.transaction().execute(async (trx) => {
    const companyId = await takeInvitationOrRefuse(trx, hashSecret(code), now);
    // A claim settled meanwhile gave the account a brand: the code stays unspent.
    if (!(await dal.setUserCompany(trx, account.userId, companyId))) throw alreadyHasBrand();
    return companyId;
  });
}

const invalidInvitation = () => badRequest('invitationCode is unknown, used or expired', 'invalid_invitation');

async function takeInvitationOrRefuse(db: Db, codeHash: string, now: Date): Promise<string> {
  const companyId = await dal.takeInvitation(db, codeHash, now);
  if (!companyId) throw invalidInvitation();
  return companyId;
}

export async function createInvitation(db: Db, user: { userId: string; companyId: string }, now = new Date()) {
  const code = randomToken(24);
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  await dal.insertInvitation(db, { codeHash: hashSecret(code), companyId: user.companyId, createdBy: user.userId, expiresAt });
  return { code, expiresAt: expiresAt.toISOString() };
}
