import { sql, type Kysely } from 'kysely';

/**
 * `commission_ledger` is append-only (migration 0015), but its trigger is per row, and TRUNCATE
 * fires no row trigger: it emptied the ledger (issue 23). A statement trigger refuses it too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function refuse_ledger_truncate() returns trigger language plpgsql as $$
    begin
      raise exception 'commission_ledger is append-only: it cannot be truncated'
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`
    create trigger commission_ledger_no_truncate before truncate on commission_ledger
    for each statement execute function refuse_ledger_truncate()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists commission_ledger_no_truncate on commission_ledger`.execute(db);
  await sql`drop function if exists refuse_ledger_truncate()`.execute(db);
}
