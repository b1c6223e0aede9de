import type { Db } from '../db/database.js';
import { companyExists } from '../companies/service.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { normalizeEmail } from '../shared/email.js';
import { checkedEmail } from '../http/email.js';
import * as dal from './dal.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from '../shared/passwords.js';
import { SIGN_IN_THROTTLE, signInTurn, type Wait } from './throttle.js';
import { cookieTrusting, deviceCookieKey, trustedDevice } from './device-cookies.js';

export interface NewBrandUser {
  email: string;
  password: string;
  displayName?: string | null;
}

/** 400 for a password outside the allowed lengths. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw badRequest(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`);
  }
}

/**
 * Creates a staff account for a brand. The admin API calls it, and so can the support CLI
 * (`createBrandUser({ db }, companyId, { email, password })`). Throws ApiError 404 for an
 * unknown company, 400 for a bad email or password, 409 `email_taken` for a used email.
 */
export async function createBrandUser(
  ctx: { db: Db },
  companyId: string,
  input: NewBrandUser,
): Promise<{ userId: string; companyId: string; email: string }> {
  const email = checkedEmail(input.email);
  checkPassword(input.password);
  if (!(await companyExists(ctx, companyId))) throw notFound(`no company ${companyId}`);
  const passwordHash = await hashPassword(input.password);
  const userId = await dal.insertUser(ctx.db, { companyId, email, displayName: input.displayName ?? null, passwordHash });
  if (!userId) throw new ApiError(409, 'email_taken', `a user with email ${email} already exists`);
  return { userId, companyId, email };
}

/** A brand's staff accounts (the admin API); 404 for an unknown company. */
export async function listBrandUsers(ctx: { db: Db }, companyId: string) {
  if (!(await companyExists(ctx, companyId))) throw notFound(`no company ${companyId}`);
  return dal.listUsers(ctx.db, companyId);
}

/**
 * The brand an email and password sign in to, checked without the sign-in's throttle and
 * without recording anything: the start banner prints the demo staff sign-in only while it works.
 */
export async function brandOfSignIn(db: Db, emailInput: string, password: string): Promise<string | null | undefined> {
  const user = await dal.findUserByEmail(db, normalizeEmail(emailInput));
  return user && (await verifyPassword(user.passwordHash, password)) ? user.companyId : undefined;
}

export type SignInResult =
  | { outcome: 'signed_in'; userId: string; companyId: string | null; deviceCookie: string }
  | { outcome: 'rejected' }
  | ({ outcome: 'rate_limited' } & Wait);

/**
 * Checks an email and password, held back as src/accounts/throttle.ts says: the attempt takes its
 * turn (and is recorded as a failure) before the password is checked, so a guess made while the
 * account or the address has to wait learns nothing, even with the right password; a success
 * clears the account's failures from that address and device. An account's delay is kept per
 * address, so an attacker failing from theirs never holds a person out of their account; the
 * address's budget across accounts bounds guessing from many accounts, the account's untrusted
 * budget guessing from many addresses, which a browser with a valid device cookie for the account
 * (`deviceCookie`) does not share. A success returns the device cookie to set, naming the account.
 * Emails without an account are counted and answered alike.
 */
export async function checkSignIn(
  db: Db,
  emailInput: string,
  password: string,
  ip: string,
  now = new Date(),
  deviceCookie?: string,
): Promise<SignInResult> {
  const email = normalizeEmail(emailInput);
  const key = await deviceCookieKey(db);
  const device = trustedDevice(deviceCookie, email, key);
  const since = (ms: number) => new Date(now.getTime() - ms);
  const turn = await dal.takeSignInTurn(
    db,
    {
      email,
      ip,
      device,
      now,
      accountSince: since(SIGN_IN_THROTTLE.accountMemoryMs),
      addressSince: since(SIGN_IN_THROTTLE.addressWindowMs),
      untrustedSince: since(SIGN_IN_THROTTLE.untrustedWindowMs),
      deviceSince: since(SIGN_IN_THROTTLE.deviceWindowMs),
    },
    (history) => signInTurn(history, device, now),
  );
  if ('wait' in turn) return { outcome: 'rate_limited', ...turn.wait };
  const user = password.length <= MAX_PASSWORD_LENGTH ? await dal.findUserByEmail(db, email) : undefined;
  const valid = await verifyPassword(user?.passwordHash, password.slice(0, MAX_PASSWORD_LENGTH));
  if (!user || !valid) return { outcome: 'rejected' };
  await dal.clearFailures(db, email, ip, device);
  return { outcome: 'signed_in', userId: user.userId, companyId: user.companyId, deviceCookie: cookieTrusting(deviceCookie, email, key) };
}
