import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface UserRecord {
  userId: string;
  companyId: string;
  email: string;
  displayName: string | null;
  passwordHash: string;
}

export interface SessionUser {
  sessionId: string;
  userId: string;
  companyId: string;
  email: string;
  displayName: string | null;
  brandName: string | null;
}

export async function companyExists(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !== undefined;
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

/** Failed sign-ins since `since`, for one email and for one client address. */
export async function countRecentFailures(db: Db, email: string, ip: string, since: Date) {
  const row = await db
    .selectFrom('sign_in_failures')
    .select([
      sql<number>`count(*) filter (where email = ${email})`.as('by_email'),
      sql<number>`count(*) filter (where ip = ${ip})`.as('by_ip'),
      sql<Date | null>`min(failed_at) filter (where email = ${email})`.as('oldest_by_email'),
      sql<Date | null>`min(failed_at) filter (where ip = ${ip})`.as('oldest_by_ip'),
    ])
    .where('failed_at', '>', since)
    .where((eb) => eb.or([eb('email', '=', email), eb('ip', '=', ip)]))
    .executeTakeFirstOrThrow();
  return {
    byEmail: Number(row.by_email),
    byIp: Number(row.by_ip),
    oldestByEmail: row.oldest_by_email ? new Date(row.oldest_by_email) : null,
    oldestByIp: row.oldest_by_ip ? new Date(row.oldest_by_ip) : null,
  };
}

export async function recordFailure(db: Db, email: string, ip: string, at: Date): Promise<void> {
  await db.insertInto('sign_in_failures').values({ email, ip, failed_at: at }).execute();
  // Old rows only ever slow the count down; they are dropped as new ones arrive.
  await db.deleteFrom('sign_in_failures').where('failed_at', '<', new Date(at.getTime() - 24 * 3600_000)).execute();
}

export async function clearFailures(db: Db, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email', '=', email).execute();
}

export async function insertSession(db: Db, session: { userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('user_sessions').values({ user_id: session.userId, token_hash: session.tokenHash, expires_at: session.expiresAt }).execute();
    await trx.updateTable('brand_users').set({ last_sign_in_at: sql`now()` }).where('id', '=', session.userId).execute();
  });
}

export async function findSessionUser(db: Db, tokenHash: string, now: Date): Promise<SessionUser | undefined> {
  const row = await db
    .selectFrom('user_sessions as s')
    .innerJoin('brand_users as u', 'u.id', 's.user_id')
    .innerJoin('companies as c', 'c.id', 'u.company_id')
    .select(['s.id as session_id', 'u.id as user_id', 'u.company_id', 'u.email', 'u.display_name', 'c.business_name'])
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
    }
  );
}

export async function revokeSession(db: Db, tokenHash: string): Promise<void> {
  await db.updateTable('user_sessions').set({ revoked_at: sql`now()` }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute();
}
