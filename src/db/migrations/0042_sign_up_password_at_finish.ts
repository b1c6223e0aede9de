import { sql, type Kysely } from 'kysely';

/**
 * Whoever proves an address chooses its password (issue 44): a sign-up kept the password given
 * with it, and its mailed link made the account with that password, so a stranger who signed up
 * with someone else's address held the account its owner then made. The password is now chosen on
 * the page the link opens; a waiting sign-up keeps none. The waiting sign-ups keep their links,
 * and the person who opens one chooses the password there: a password someone chose before goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sign_up_requests drop column password_hash`.execute(db);
}

/** Back to a password given with the sign-up: the waiting sign-ups have none to give, so they go. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from sign_up_requests`.execute(db);
  await sql`alter table sign_up_requests add column password_hash text not null`.execute(db);
}
