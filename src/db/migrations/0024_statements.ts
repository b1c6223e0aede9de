import { sql, type Kysely } from 'kysely';

/**
 * Statements that close (issue 26). On the first day of a month the closing job closes the month
 * before for every brand at once, in one transaction: `statement_closings` gets the month (its
 * primary key lets one process of several do it), each brand with ledger entries not on any
 * statement yet and created before the month's end gets a numbered `statements` row, the entries
 * it claims (`statement_entries`, one statement per entry) and its fixed totals per currency
 * (`statement_totals`). All three refuse updates and deletes: a closed statement never changes.
 * An entry created later for a closed month's order is claimed by the next statement to close.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table statement_closings (
      month date primary key check (extract(day from month) = 1),
      closed_at timestamptz not null
    )`.execute(db);
  await sql`
    create table statements (
      id bigint generated always as identity primary key,
      number text not null unique,
      company_id text not null,
      month date not null references statement_closings (month),
      closed_at timestamptz not null,
      due_on date not null,
      unique (company_id, month)
    )`.execute(db);
  await sql`
    create table statement_entries (
      ledger_id bigint primary key references commission_ledger (id),
      statement_id bigint not null references statements (id)
    )`.execute(db);
  await sql`create index statement_entries_statement_idx on statement_entries (statement_id)`.execute(db);
  await sql`
    create table statement_totals (
      statement_id bigint not null references statements (id),
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      commission_minor bigint not null,
      reversals_minor bigint not null,
      adjustments_minor bigint not null,
      net_minor bigint not null,
      charged_minor bigint not null,
      owed_minor bigint not null,
      entries integer not null,
      primary key (statement_id, currency)
    )`.execute(db);
  await sql`
    create function refuse_statement_change() returns trigger language plpgsql as $$
    begin
      raise exception '% is closed: a closed statement never changes', tg_table_name using errcode = 'restrict_violation';
    end $$`.execute(db);
  for (const table of ['statement_closings', 'statements', 'statement_entries', 'statement_totals']) {
    await sql
      .raw(`create trigger ${table}_closed before update or delete on ${table} for each row execute function refuse_statement_change()`)
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists statement_totals, statement_entries, statements, statement_closings`.execute(db);
  await sql`drop function if exists refuse_statement_change()`.execute(db);
}
