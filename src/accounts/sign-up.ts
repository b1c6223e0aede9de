import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { CommerceAdapter } from '../commerce/adapter.js';
import { noCommercePlatform } from '../commerce/registry.js';
import { ApiError, badRequest } from '../http/errors.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import { storeDomain } from '../shared/domain.js';
import { importCustomerHistory } from '../orders/service.js';
import { companyForClaim } from '../companies/service.js';
import { inTransaction, type Publisher } from '../service-context.js';
import * as dal from './dal.js';
import { hashPassword } from '../shared/passwords.js';
import { checkedEmail } from '../http/email.js';
import { checkPassword } from './users.js';

type ClaimAdapter = Pick<
  CommerceAdapter,
  'platformNameOf' | 'requestOwnershipConfirmation' | 'ownershipAnswer' | 'subscribeToOrders' | 'pastOrders'
>;

export interface SignUpContext {
  db: Db;
  /** A confirmed claim may create the store's brand, which the offers caches hear about. */
  bus: Publisher;
  /** The commerce platform that proves store ownership; null on a host with none (prod until one is configured). */
  adapter: ClaimAdapter | null;
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
  const domain = storeDomain(brand.domain);
  if (!domain) throw badRequest('brand.domain must be a store domain such as shop.example');
  if ((await dal.findCompanyByDomain(db, domain))?.hasStaff) throw brandHasStaff();
  return { domain, businessName, categories: [...new Set((brand.categories ?? []).map((category) => category.trim()).filter(Boolean))] };
}

function viewOf(claim: dal.ClaimRow, platformName: string): ClaimView | null {
  const base = { domain: claim.domain, businessName: claim.business_name, confirmUrl: claim.confirm_url };
  switch (claim.status) {
    case 'pending':
      return {
        ...base,
        status: 'pending',
        message: `Confirm at ${platformName}, signed in as the owner of ${claim.domain}, that you act for the store.`,
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
  return claim ? viewOf(claim, ctx.adapter?.platformNameOf(claim.domain) ?? "the store's commerce platform") : null;
}

/**
 * Signs up. With an invitation code from a member, the account joins that brand at once. With a
 * brand (name and store domain), the account is created without a brand and claims the store:
 * it acts for the brand only once the store's owner confirms through the commerce platform
 * (checkClaim). A store whose brand already has staff is joined by invitation only.
 */
export async function signUp(
  ctx: SignUpContext,
  input: { email: string; password: string; brand?: BrandInput | undefined; invitationCode?: string | undefined },
  now = new Date(),
): Promise<{ userId: string; companyId: string | null; claim: ClaimView | null }> {
  if ((input.brand === undefined) === (input.invitationCode === undefined)) {
    throw badRequest("send either brand (to claim your store) or invitationCode (to join your team's brand)");
  }
  if (input.brand !== undefined) claimAdapter(ctx);
  checkPassword(input.password);
  const email = checkedEmail(input.email);
  const taken = () => new ApiError(409, 'email_taken', `a user with email ${email} already exists`);
  if (input.invitationCode !== undefined) {
    const codeHash = hashSecret(input.invitationCode);
    const passwordHash = await hashPassword(input.password);
    // The code is checked before the email, so a bad code is answered alike whether the email has an
    // account or not (issue 23); the code is spent only together with the account it makes: a
    // sign-up that finds the email taken leaves it usable.
    return ctx.db.transaction().execute(async (trx) => {
      const companyId = await takeInvitationOrRefuse(trx, codeHash, now);
      const userId = await dal.insertUser(trx, { companyId, email, displayName: null, passwordHash });
      if (!userId) throw taken();
      return { userId, companyId, claim: null };
    });
  }
  // The claim is checked first too: only a sign-up that would otherwise succeed learns the email is taken.
  const claim = await checkedClaim(ctx.db, input.brand!);
  if (await dal.findUserIdByEmail(ctx.db, email)) throw taken();
  const created = await dal.insertUserWithClaim(ctx.db, { email, passwordHash: await hashPassword(input.password) }, claim);
  if (!created) throw taken();
  await requestConfirmation(ctx, { id: created.claimId, domain: claim.domain }, email);
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

async function takeInvitationOrRefuse(db: Db, codeHash: string, now: Date): Promise<string> {
  const companyId = await dal.takeInvitation(db, codeHash, now);
  if (!companyId) throw badRequest('invitationCode is unknown, used or expired', 'invalid_invitation');
  return companyId;
}

export async function createInvitation(db: Db, user: { userId: string; companyId: string }, now = new Date()) {
  const code = randomToken(24);
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  await dal.insertInvitation(db, { codeHash: hashSecret(code), companyId: user.companyId, createdBy: user.userId, expiresAt });
  return { code, expiresAt: expiresAt.toISOString() };
}
