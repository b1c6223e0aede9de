import { sql, type Kysely } from 'kysely';

/**
 * A held commission charged later (issue 25): once the store approves its plan or a raised capped
 * amount, the held charge is made and the hold is marked settled (when) rather than deleted, so
 * support can still see that the charge waited and for how long.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table commission_charge_holds add column settled_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table commission_charge_holds drop column if exists settled_at`.execute(db);
}
