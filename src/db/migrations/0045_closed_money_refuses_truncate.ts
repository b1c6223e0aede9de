import { sql, type Kysely } from 'kysely';

/**
 * Closed money is append-only, TRUNCATE included (issue 44). Migration 0024's row triggers refuse
 * updates and deletes of closed statements, and 0021 refuses truncating the ledger, but TRUNCATE
 * fires no row trigger: `truncate statements cascade` emptied every closed statement. A statement
 * trigger now refuses it on the statement tables and on what a statement shows beside the ledger:
 * the charge holds (0030, 0035) and the commerce platform's charges (0040).
 *
 * Those two were open to any update. The code makes exactly these changes, and the triggers allow
 * only them: a hold not yet settled takes the latest reason and time (orders/dal.ts
 * holdCommerceCharge), and is settled once (settleCommerceChargeHold); a settled hold never
 * changes, no hold is deleted. A charge is noted once and never changed or deleted
 * (noteCommerceCharge). test/support/databases.ts empties tables between test files with
 * DELETE as a replica session, which these ordinary triggers do not see.
 */
const APPEND_ONLY = [
  'statement_closings',
  'statements',
  'statement_entries',
  'statement_totals',
  'commission_charge_holds',
  'commission_commerce_charges',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function refuse_closed_money_truncate() returns trigger language plpgsql as $$
    begin
      raise exception '% is append-only: it cannot be truncated', tg_table_name using errcode = 'restrict_violation';
    end $$`.execute(db);
  for (const table of APPEND_ONLY) {
    await sql`
      create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
      for each statement execute function refuse_closed_money_truncate()`.execute(db);
  }

  await sql`
    create function refuse_charge_hold_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.settled_at is null
         and new.store_domain = old.store_domain and new.order_id = old.order_id
         and (new.settled_at is null or (new.reason = old.reason and new.held_at = old.held_at)) then
        return new;
      end if;
      raise exception 'commission_charge_holds: a hold is re-held or settled once, a settled hold never changes, none is deleted'
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`
    create trigger commission_charge_holds_settled_once before update or delete on commission_charge_holds
    for each row execute function refuse_charge_hold_change()`.execute(db);

  await sql`
    create function refuse_commerce_charge_change() returns trigger language plpgsql as $$
    begin
      raise exception 'commission_commerce_charges is append-only: a charge is noted once and never changes'
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`
    create trigger commission_commerce_charges_append_only before update or delete on commission_commerce_charges
    for each row execute function refuse_commerce_charge_change()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists commission_commerce_charges_append_only on commission_commerce_charges`.execute(db);
  await sql`drop function if exists refuse_commerce_charge_change()`.execute(db);
  await sql`drop trigger if exists commission_charge_holds_settled_once on commission_charge_holds`.execute(db);
  await sql`drop function if exists refuse_charge_hold_change()`.execute(db);
  for (const table of APPEND_ONLY) {
    await sql`drop trigger if exists ${sql.raw(`${table}_no_truncate`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists refuse_closed_money_truncate()`.execute(db);
}
