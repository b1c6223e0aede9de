import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';
import type { AttemptHistory } from './throttle.js';

export interface UserRecord {
  userId: string;
  /** Null while the account's claim of a store waits for the store owner. */
  companyId: string | null;
  email: string;
  displayName: string | null;
  passwordHash: string;
}

/** A signed-in account, with or without a brand to act for. */
export interface SessionAccount {
  sessionId: string;
  userId: string;
  companyId: string | null;
  email: string;
  displayName: string | null;
  brandName: string | null;
  /** The brand's store domain. */
  brandDomain: string | null;
}

/** A signed-in account that acts for a brand. */
export interface SessionUser extends SessionAccount {
  companyId: string;
}

/** Inserts a user; returns undefined when the email is already taken. */
export async function insertUser(
  db: Db,
  user: { companyId: string; email: string; displayName: string | null; passwordHash: string },
): Promise<string | undefined> {
  const row = await db
    .insertInto('brand_users')
    .values({ company_id: user.companyId, email: user.email, display_name: user.displayName, password_hash: user.passwordHash })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** A staff account as the fixture loader gives it, password already hashed. */
export interface FixtureUserRow {
  company_id: string;
  email: string;
  display_name: string | null;
  password_hash: string;
}

/**
 * The fixture loader's staff accounts, in one statement: an email that already has an account
 * keeps it as it is (its password may have been changed since), so a reload writes nothing.
 */
export function insertFixtureUsers(db: Db, rows: FixtureUserRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into brand_users (company_id, email, display_name, password_hash)
      select company_id, email, display_name, password_hash
      from jsonb_to_recordset(${jsonRows(rows)}) as r(company_id text, email text, display_name text, password_hash text)
      on conflict (email) do nothing
      returning 1`,
  );
}

/** Which brand each of these emails' accounts acts for (null: a sign-up still waiting for its store). */
export async function findUserCompanies(db: Db, emails: string[]): Promise<Map<string, string | null>> {
  if (emails.length === 0) return new Map();
  const rows = await db.selectFrom('brand_users').select(['email', 'company_id']).where('email', 'in', emails).execute();
  return new Map(rows.map((row) => [row.email, row.company_id]));
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRecord | undefined> {
  const row = await db
    .selectFrom('brand_users')
    .select(['id', 'company_id', 'email', 'display_name', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  return (
    row && {
      userId: row.id,
      companyId: row.company_id,
      email: row.email,
      displayName: row.display_name,
      passwordHash: row.password_hash,
    }
  );
}

export async function listUsers(db: Db, companyId: string) {
  const rows = await db
    .selectFrom('brand_users')
    .select(['id', 'email', 'display_name', 'created_at', 'last_sign_in_at'])
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    userId: row.id,
    email: row.email,
    displayName: row.display_name,
    createdAt: row.created_at.toISOString(),
    lastSignInAt: row.last_sign_in_at ? row.last_sign_in_at.toISOString() : null,
  }));
}

/** Rows of the throttles older than this are dropped as new ones arrive: they no longer count. */
const THROTTLE_ROWS_KEPT_MS = 24 * 3600_000;

/**
 * Runs `work` in a transaction holding an advisory lock on each key, taken in the order given, so
 * concurrent attempts on the same account or from the same address take turns: a burst of guesses
 * sent at once meets the attempts recorded before it, instead of every guess passing one check.
 */
async function inTurn<T>(db: Db, keys: string[], work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    for (const key of keys) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    return work(trx);
  });
}

/**
 * A sign-in attempt's turn: with the email and the address locked, reads the email's failures from
 * this address since `accountSince` (an account's delay is its own per address, so failures from
 * elsewhere never keep a person out), the address's failures on every account since `addressSince`,
 * the email's untrusted failures (no device) since `untrustedSince` and the presented device's
 * since `deviceSince`; unless `decide` returns a wait, records the attempt as a failure of the
 * device it names (null: untrusted) before the password is checked (a correct one then clears
 * them), and returns that device. Nothing is written on a wait.
 */
export async function takeSignInTurn<Wait>(
  db: Db,
  turn: {
    email: string;
    ip: string;
    device: string | null;
    now: Date;
    accountSince: Date;
    addressSince: Date;
    untrustedSince: Date;
    deviceSince: Date;
  },
  decide: (history: AttemptHistory) => { wait: Wait } | { device: string | null },
): Promise<{ wait: Wait } | { device: string | null }> {
  const { email, ip, now } = turn;
  const emailSince = new Date(Math.min(turn.accountSince.getTime(), turn.untrustedSince.getTime(), turn.deviceSince.getTime()));
  return inTurn(db, [`sign-in account ${email}`, `sign-in address ${ip}`], async (trx) => {
    const untrusted = sql`email = ${email} and device is null and failed_at > ${turn.untrustedSince}`;
    const row = await trx
      .selectFrom('sign_in_failures')
      .select([
        sql<number>`count(*) filter (where email = ${email} and ip = ${ip} and failed_at > ${turn.accountSince})`.as('account_failures'),
        sql<Date | null>`max(failed_at) filter (where email = ${email} and ip = ${ip} and failed_at > ${turn.accountSince})`.as(
          'latest_account_failure',
        ),
        sql<number>`count(*) filter (where ip = ${ip} and failed_at > ${turn.addressSince})`.as('address_failures'),
        sql<Date | null>`min(failed_at) filter (where ip = ${ip} and failed_at > ${turn.addressSince})`.as('oldest_address_failure'),
        sql<number>`count(*) filter (where ${untrusted})`.as('untrusted_failures'),
        sql<Date | null>`min(failed_at) filter (where ${untrusted})`.as('oldest_untrusted_failure'),
        sql<number>`count(*) filter (where email = ${email} and device = ${turn.device} and failed_at > ${turn.deviceSince})`.as(
          'device_failures',
        ),
      ])
      .where((eb) =>
        eb.or([
          eb.and([eb('email', '=', email), eb('failed_at', '>', emailSince)]),
          eb.and([eb('ip', '=', ip), eb('failed_at', '>', turn.addressSince)]),
        ]),
      )
      .executeTakeFirstOrThrow();
    const decision = decide({
      accountFailures: Number(row.account_failures),
      latestAccountFailure: row.latest_account_failure ? new Date(row.latest_account_failure) : null,
      addressAttempts: Number(row.address_failures),
      oldestAddressAttempt: row.oldest_address_failure ? new Date(row.oldest_address_failure) : null,
      untrustedFailures: Number(row.untrusted_failures),
      oldestUntrustedFailure: row.oldest_untrusted_failure ? new Date(row.oldest_untrusted_failure) : null,
      deviceFailures: Number(row.device_failures),
    });
    if ('wait' in decision) return decision;
    await trx.insertInto('sign_in_failures').values({ email, ip, device: decision.device, failed_at: now }).execute();
    await trx
      .deleteFrom('sign_in_failures')
      .where('failed_at', '<', new Date(now.getTime() - THROTTLE_ROWS_KEPT_MS))
      .execute();
    return decision;
  });
}

/**
 * A password reset request's turn: with the address locked, reads its requests since `since`;
 * unless `refuse` returns a reason to wait, records this one and returns null.
 */
export async function takePasswordResetTurn<Refusal>(
  db: Db,
  turn: { ip: string; now: Date; since: Date },
  refuse: (history: Pick<AttemptHistory, 'addressAttempts' | 'oldestAddressAttempt'>) => Refusal | null,
): Promise<Refusal | null> {
  const { ip, now } = turn;
  return inTurn(db, [`password reset address ${ip}`], async (trx) => {
    const row = await trx
      .selectFrom('password_reset_requests')
      .select([sql<number>`count(*)`.as('requests'), sql<Date | null>`min(requested_at)`.as('oldest')])
      .where('ip', '=', ip)
      .where('requested_at', '>', turn.since)
      .executeTakeFirstOrThrow();
    const refusal = refuse({ addressAttempts: Number(row.requests), oldestAddressAttempt: row.oldest ? new Date(row.oldest) : null });
    if (refusal !== null) return refusal;
    await trx.insertInto('password_reset_requests').values({ ip, requested_at: now }).execute();
    await trx
      .deleteFrom('password_reset_requests')
      .where('requested_at', '<', new Date(now.getTime() - THROTTLE_ROWS_KEPT_MS))
      .execute();
    return null;
  });
}

/** A key made once per database by a migration (migration 0043: the device cookies' HMAC key). */
export async function findServiceSecret(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('service_secrets').select('secret').where('name', '=', name).executeTakeFirst();
  return row?.secret;
}

/**
 * A success clears the account's failures from its address and its device; failures from elsewhere
 * keep their own waits, and untrusted ones made elsewhere stay in the account's budget.
 */
export async function clearFailures(db: Db, email: string, ip: string, device: string | null): Promise<void> {
  await db
    .deleteFrom('sign_in_failures')
    .where('email', '=', email)
    .where((eb) => (device === null ? eb('ip', '=', ip) : eb.or([eb('ip', '=', ip), eb('device', '=', device)])))
    .execute();
}

export async function insertSession(db: Db, session: { userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('user_sessions')
      .values({ user_id: session.userId, token_hash: session.tokenHash, expires_at: session.expiresAt })
      .execute();
    await trx.updateTable('brand_users').set({ last_sign_in_at: sql`now()` }).where('id', '=', session.userId).execute();
  });
}

export async function findSessionAccount(db: Db, tokenHash: string, now: Date): Promise<SessionAccount | undefined> {
  const row = await db
    .selectFrom('user_sessions as s')
    .innerJoin('brand_users as u', 'u.id', 's.user_id')
    .leftJoin('companies as c', 'c.id', 'u.company_id')
    .select(['s.id as session_id', 'u.id as user_id', 'u.company_id', 'u.email', 'u.display_name', 'c.business_name', 'c.domain'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      sessionId: row.session_id,
      userId: row.user_id,
      companyId: row.company_id,
      email: row.email,
      displayName: row.display_name,
      brandName: row.business_name,
      brandDomain: row.domain,
    }
  );
}

export async function revokeSession(db: Db, tokenHash: string): Promise<void> {
  await db
    .updateTable('user_sessions')
    .set({ revoked_at: sql`now()` })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute();
}

// --- joining a brand and resetting a password ---

export async function insertInvitation(
  db: Db,
  invitation: { codeHash: string; companyId: string; createdBy: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('brand_invitations')
    .values({
      code_hash: invitation.codeHash,
      company_id: invitation.companyId,
      created_by: invitation.createdBy,
      expires_at: invitation.expiresAt,
    })
    .execute();
}

/** Uses an invitation once: returns its brand, or undefined when it is unknown, used or expired. */
export async function takeInvitation(db: Db, codeHash: string, now: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('brand_invitations')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('company_id')
    .executeTakeFirst();
  return row?.company_id;
}

export async function findUserIdByEmail(db: Db, email: string): Promise<string | undefined> {
  return (await db.selectFrom('brand_users').select('id').where('email', '=', email).executeTakeFirst())?.id;
}

/** Gives a brandless account its brand (an invitation or a verified claim); false when it already has one. */
export async function setUserCompany(db: Db, userId: string, companyId: string): Promise<boolean> {
  const result = await db
    .updateTable('brand_users')
    .set({ company_id: companyId })
    .where('id', '=', userId)
    .where('company_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertPasswordReset(db: Db, reset: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({ token_hash: reset.tokenHash, user_id: reset.userId, expires_at: reset.expiresAt })
    .execute();
}

/**
 * Sets the new password with a reset token, once; every other reset token of the user is spent in
 * the same statement (whoever holds an older mail cannot reset the new password), and every session
 * of the user ends with it.
 */
export async function resetPassword(db: Db, tokenHash: string, passwordHash: string, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('used_at', 'is', null)
      .where('user_id', '=', (eb) =>
        eb
          .selectFrom('password_resets')
          .select('user_id')
          .where('token_hash', '=', tokenHash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', now),
      )
      .returning('user_id')
      .execute();
    const userId = spent[0]?.user_id;
    if (!userId) return false;
    const user = await trx
      .updateTable('brand_users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .returning('email')
      .executeTakeFirstOrThrow();
    // The old password's failures say nothing about the new one: every address starts over.
    await trx.deleteFrom('sign_in_failures').where('email', '=', user.email).execute();
    await trx.updateTable('user_sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
    return true;
  });
}

// --- claims of a store, proved by its owner through the commerce platform ---

export interface NewClaim {
  domain: string;
  businessName: string;
  categories: string[];
}

export interface ClaimRow {
  id: string;
  user_id: string;
  domain: string;
  business_name: string;
  categories: string[];
  status: 'pending' | 'verified' | 'declined' | 'refused';
  confirm_url: string | null;
}

/** Whether a company holds the domain, and whether anyone acts for it yet. */
export async function findCompanyByDomain(db: Db, domain: string): Promise<{ id: string; hasStaff: boolean } | undefined> {
  const row = await db
    .selectFrom('companies as c')
    .select(['c.id', sql<boolean>`exists (select 1 from brand_users u where u.company_id = c.id)`.as('has_staff')])
    .where('c.domain', '=', domain)
    .executeTakeFirst();
  return row && { id: row.id, hasStaff: Boolean(row.has_staff) };
}

/** Creates a brand-less account with its pending claim, in the caller's transaction; undefined when the email is taken. */
export async function insertUserWithClaim(
  db: Db,
  user: { email: string; passwordHash: string },
  claim: NewClaim,
): Promise<{ userId: string; claimId: string } | undefined> {
  const inserted = await db
    .insertInto('brand_users')
    .values({ company_id: null, email: user.email, display_name: null, password_hash: user.passwordHash })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return undefined;
  const claimId = await insertClaim(db, inserted.id, claim);
  return { userId: inserted.id, claimId };
}

/** A new pending claim for the account, replacing the one it had open. */
export async function insertClaim(db: Db, userId: string, claim: NewClaim): Promise<string> {
  await db.deleteFrom('brand_claims').where('user_id', '=', userId).where('status', '=', 'pending').execute();
  const row = await db
    .insertInto('brand_claims')
    .values({ user_id: userId, domain: claim.domain, business_name: claim.businessName, categories: claim.categories })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function setClaimConfirmUrl(db: Db, claimId: string, confirmUrl: string): Promise<void> {
  await db.updateTable('brand_claims').set({ confirm_url: confirmUrl }).where('id', '=', claimId).execute();
}

/** The account's latest claim, settled or not. */
export async function latestClaim(db: Db, userId: string): Promise<ClaimRow | undefined> {
  return db
    .selectFrom('brand_claims')
    .select(['id', 'user_id', 'domain', 'business_name', 'categories', 'status', 'confirm_url'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export async function declineClaim(db: Db, claimId: string, now: Date): Promise<void> {
  await db
    .updateTable('brand_claims')
    .set({ status: 'declined', decided_at: now })
    .where('id', '=', claimId)
    .where('status', '=', 'pending')
    .execute();
}

/** Marks a pending claim verified; false when it was settled before (another check got there first). */
export async function verifyClaim(db: Db, claimId: string, now: Date): Promise<boolean> {
  const open = await db
    .updateTable('brand_claims')
    .set({ status: 'verified', decided_at: now })
    .where('id', '=', claimId)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return open !== undefined;
}

export async function refuseClaim(db: Db, claimId: string): Promise<void> {
  await db.updateTable('brand_claims').set({ status: 'refused' }).where('id', '=', claimId).execute();
}

export async function companyHasStaff(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom('brand_users').select('id').where('company_id', '=', companyId).executeTakeFirst()) !== undefined;
}

/** The claimant's account acts for the company from now on. */
export async function setClaimantCompany(db: Db, userId: string, companyId: string): Promise<void> {
  await db.updateTable('brand_users').set({ company_id: companyId }).where('id', '=', userId).execute();
}

// --- the development mailbox ---

/** Keeps a day of messages: the mailbox is for following a flow by hand, not an archive. */
const OUTBOX_RETENTION_MS = 24 * 3600_000;

export async function insertOutboxMail(db: Db, mail: { recipient: string; subject: string; body: string }, now: Date): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({ ...mail, created_at: now })
    .execute();
  await db
    .deleteFrom('mail_outbox')
    .where('created_at', '<', new Date(now.getTime() - OUTBOX_RETENTION_MS))
    .execute();
}

export async function listOutboxMail(db: Db, limit: number) {
  return db
    .selectFrom('mail_outbox')
    .select(['id', 'recipient', 'subject', 'body', 'created_at'])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** A store's claims still waiting for its owner, oldest first, with the claimant's address: what the store's staff are asked. */
export async function pendingClaimsOfStore(
  db: Db,
  domain: string,
  limit: number,
): Promise<Array<{ claimId: string; email: string; businessName: string }>> {
  const rows = await db
    .selectFrom('brand_claims as c')
    .innerJoin('brand_users as u', 'u.id', 'c.user_id')
    .select(['c.id', 'u.email', 'c.business_name'])
    .where('c.domain', '=', domain)
    .where('c.status', '=', 'pending')
    .where('u.company_id', 'is', null)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ claimId: row.id, email: row.email, businessName: row.business_name }));
}

/** Whether `claimId` is a claim of `domain` still waiting for its owner, by an account without a brand. */
export async function isPendingClaimOfStore(db: Db, claimId: string, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('brand_claims as c')
    .innerJoin('brand_users as u', 'u.id', 'c.user_id')
    .select('c.id')
    .where('c.id', '=', claimId)
    .where('c.domain', '=', domain)
    .where('c.status', '=', 'pending')
    .where('u.company_id', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Declines a pending claim of `domain`; false when there is none by that id (settled, or of another store). */
export async function declineClaimOfStore(db: Db, claimId: string, domain: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('brand_claims')
    .set({ status: 'declined', decided_at: now })
    .where('id', '=', claimId)
    .where('domain', '=', domain)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether `claimId` is the user's claim of `domain`, still waiting for the store owner. */
export async function isPendingClaimOf(db: Db, claim: { claimId: string; userId: string; domain: string }): Promise<boolean> {
  const row = await db
    .selectFrom('brand_claims')
    .select('id')
    .where('id', '=', claim.claimId)
    .where('user_id', '=', claim.userId)
    .where('domain', '=', claim.domain)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether an invitation code can still be taken, without taking it: a sign-up spends it only once its address is confirmed. */
export async function invitationUsable(db: Db, codeHash: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('brand_invitations')
    .select('code_hash')
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

export interface SignUpRequest {
  tokenHash: string;
  email: string;
  invitationCodeHash: string | null;
  claim: NewClaim | null;
  expiresAt: Date;
}

/**
 * Keeps a sign-up waiting for its link, unless its address has an account: then nothing is
 * written. Whether the address has one is asked inside the insert, so a free and a taken address
 * run the same statements (issue 44: on PGlite's one connection, work done for one and not the
 * other would show in the next request's wait). Expired sign-ups go, and an address keeps only
 * its newest `perEmail`, so mailing sign-ups to one address cannot grow the table. Sign-ups to one
 * address take turns: several can arrive at once, and each would otherwise count the others' rows
 * before they commit and keep one too many. True when the sign-up waits for its link.
 */
export async function insertSignUpRequestUnlessTaken(db: Db, request: SignUpRequest, perEmail: number, now: Date): Promise<boolean> {
  return inTurn(db, [`sign-up ${request.email}`], async (trx) => {
    await trx.deleteFrom('sign_up_requests').where('expires_at', '<=', now).execute();
    const inserted = await trx
      .insertInto('sign_up_requests')
      .columns(['token_hash', 'email', 'invitation_code_hash', 'domain', 'business_name', 'categories', 'expires_at', 'created_at'])
      .expression(
        trx
          .selectNoFrom([
            sql<string>`${request.tokenHash}::text`.as('token_hash'),
            sql<string>`${request.email}::text`.as('email'),
            sql<string | null>`${request.invitationCodeHash}::text`.as('invitation_code_hash'),
            sql<string | null>`${request.claim?.domain ?? null}::text`.as('domain'),
            sql<string | null>`${request.claim?.businessName ?? null}::text`.as('business_name'),
            sql<string[] | null>`${request.claim?.categories ?? null}::text[]`.as('categories'),
            sql<Date>`${request.expiresAt}::timestamptz`.as('expires_at'),
            sql<Date>`${now}::timestamptz`.as('created_at'),
          ])
          .where(({ not, exists, selectFrom }) => not(exists(selectFrom('brand_users').select('id').where('email', '=', request.email)))),
      )
      .returning('token_hash')
      .execute();
    const kept = trx
      .selectFrom('sign_up_requests')
      .select('token_hash')
      .where('email', '=', request.email)
      .orderBy('created_at', 'desc')
      .orderBy('token_hash', 'desc')
      .limit(perEmail);
    await trx.deleteFrom('sign_up_requests').where('email', '=', request.email).where('token_hash', 'not in', kept).execute();
    return inserted.length > 0;
  });
}

/** Takes a sign-up's link once: the row goes with the transaction that makes the account. */
export async function takeSignUpRequest(db: Db, tokenHash: string, now: Date): Promise<SignUpRequest | undefined> {
  const row = await db
    .deleteFrom('sign_up_requests')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    tokenHash: row.token_hash,
    email: row.email,
    invitationCodeHash: row.invitation_code_hash,
    claim:
      row.domain === null || row.business_name === null
        ? null
        : { domain: row.domain, businessName: row.business_name, categories: row.categories ?? [] },
    expiresAt: row.expires_at,
  };
}
