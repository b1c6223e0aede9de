import { sql, type Kysely } from 'kysely';

const FIGURES = ['views', 'clicks', 'orders', 'new_customers', 'revenue_cents', 'commission_cents'] as const;
const figureColumns = sql.raw(FIGURES.map((figure) => `${figure} bigint not null default 0`).join(',\n'));
const addExcluded = sql.raw(FIGURES.map((figure) => `${figure} = t.${figure} + excluded.${figure}`).join(', '));
const sums = sql.raw(FIGURES.map((figure) => `sum(${figure})`).join(', '));
const figureList = sql.raw(FIGURES.join(', '));

/**
 * The performance page's rollups and the brand search index.
 *
 * A brand's performance over a range is read from daily rollups, per brand, day and platform
 * from both sides (offers the brand showed and its own offer shown by others: totals, chart,
 * per-platform table) and per showing brand, partner and day (the per-partner table and the CSV).
 * The offers endpoint's hot path does not write them: views and clicks are recorded with the day
 * of the request, so a day stops changing once it has passed, and `seal_performance` folds the
 * counters of days older than the live window (`performance_seal_day`, a week) into the rollups
 * in the background; readers take sealed days from the rollups and the days after
 * `performance_sealed.sealed_through` from the raw counters, in one statement each. Orders (rare,
 * and they may arrive for any day) go into the rollups at once, by a trigger on attributed_orders.
 * `record_performance` is the one place that turns link-level deltas into rollup rows;
 * `rebuild_performance` recomputes everything from the raw tables (the backfill below).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table performance_days (
      company_id text not null,
      day date not null,
      platform_id uuid not null,
      ${figureColumns},
      primary key (company_id, day, platform_id)
    ) with (fillfactor = 70)`.execute(db);
  // One row per showing (brand, partner), not one per side: a brand's figures with another are
  // its rows as the showing brand plus those as the partner.
  await sql`
    create table performance_pair_days (
      brand_id text not null,
      partner_id text not null,
      day date not null,
      ${figureColumns},
      primary key (brand_id, partner_id, day)
    ) with (fillfactor = 70)`.execute(db);
  // A page of partners probes the primary key from both ends of a pair; the CSV export reads
  // all of a brand's pairs in a range, by day.
  await sql`create index performance_pair_days_brand_day_idx on performance_pair_days (brand_id, day)`.execute(db);
  await sql`create index performance_pair_days_partner_day_idx on performance_pair_days (partner_id, day)`.execute(db);
  // The days whose views and clicks are in the rollups: every day up to sealed_through (none when null).
  await sql`
    create table performance_sealed (
      singleton boolean primary key default true check (singleton),
      sealed_through date
    )`.execute(db);
  await sql`insert into performance_sealed default values`.execute(db);
  // The live window: days after this one are read from the counters. Views and clicks are
  // recorded with the day of the request, so a day a week old receives none any more.
  await sql`
    create function performance_seal_day() returns date language sql stable
    as $$ select (now() at time zone 'UTC')::date - 7 $$`.execute(db);

  // Every brand a brand has run a campaign with, and its name: figures only come from
  // campaigns, so this is every brand it can have figures with. The per-partner table pages
  // through it by name without reading the companies (the triggers below keep it current).
  await sql`
    create table performance_partners (
      company_id text not null,
      other_id text not null,
      other_name text,
      primary key (company_id, other_id)
    )`.execute(db);
  await sql`create index performance_partners_name_idx on performance_partners (company_id, other_name, other_id)`.execute(db);
  await sql`create index performance_partners_other_idx on performance_partners (other_id)`.execute(db);
  await sql`
    create function add_performance_partners() returns trigger language plpgsql as $$
    begin
      insert into performance_partners (company_id, other_id, other_name)
      select pair.company_id, pair.other_id, other.business_name
      from (
        select owner_id as company_id, partner_id as other_id from new_campaigns
        union
        select partner_id, owner_id from new_campaigns
      ) pair
      join companies other on other.id = pair.other_id
      where pair.company_id <> pair.other_id
      order by 1, 2
      on conflict do nothing;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger campaigns_performance_partners after insert on campaigns
    referencing new table as new_campaigns for each statement execute function add_performance_partners()`.execute(db);
  await sql`
    create function rename_performance_partners() returns trigger language plpgsql as $$
    begin
      update performance_partners p set other_name = renamed.business_name
      from new_companies renamed join old_companies previous on previous.id = renamed.id
      where p.other_id = renamed.id and renamed.business_name is distinct from previous.business_name;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger companies_rename_performance_partners after update on companies
    referencing old table as old_companies new table as new_companies
    for each statement execute function rename_performance_partners()`.execute(db);
  await sql`
    insert into performance_partners (company_id, other_id, other_name)
    select pair.company_id, pair.other_id, other.business_name
    from (select owner_id as company_id, partner_id as other_id from campaigns union select partner_id, owner_id from campaigns) pair
    join companies other on other.id = pair.other_id
    where pair.company_id <> pair.other_id
    on conflict do nothing`.execute(db);

  await sql`
    create function record_performance(
      platform_ids uuid[], days date[], brand_ids text[], partner_ids text[],
      view_counts bigint[], click_counts bigint[], order_counts bigint[], new_customer_counts bigint[],
      revenue bigint[], commission bigint[]
    ) returns void language plpgsql as $$
    begin
      -- Rows go in key order, so writers touching overlapping rows lock them in the same order.
      with delta as (
        select d.platform_id, d.day, d.brand_id, d.partner_id,
               coalesce(d.views, 0) as views, coalesce(d.clicks, 0) as clicks, coalesce(d.orders, 0) as orders,
               coalesce(d.new_customers, 0) as new_customers, coalesce(d.revenue_cents, 0) as revenue_cents,
               coalesce(d.commission_cents, 0) as commission_cents
        from unnest(platform_ids, days, brand_ids, partner_ids, view_counts, click_counts, order_counts, new_customer_counts,
                    revenue, commission)
               as d(platform_id, day, brand_id, partner_id, views, clicks, orders, new_customers, revenue_cents, commission_cents)
        where d.platform_id is not null
      ),
      -- A showing counts for the showing brand and, unless it showed its own offer, for the partner.
      by_day as (
        insert into performance_days as t (company_id, day, platform_id, ${figureList})
        select side.company_id, d.day, d.platform_id, ${sums}
        from delta d cross join lateral (values (d.brand_id), (d.partner_id)) as side(company_id)
        where side.company_id = d.brand_id or d.partner_id <> d.brand_id
        group by 1, 2, 3 order by 1, 2, 3
        on conflict (company_id, day, platform_id) do update set ${addExcluded}
      )
      insert into performance_pair_days as t (brand_id, partner_id, day, ${figureList})
      select brand_id, partner_id, day, ${sums} from delta group by 1, 2, 3 order by 1, 2, 3
      on conflict (brand_id, partner_id, day) do update set ${addExcluded};
    end $$`.execute(db);

  // Folds the views and clicks of the days after the last sealed one, up to `through`, into the
  // rollups, and moves the mark: one transaction, so a reader sees either the counters or the
  // rollups of a day, never both. The row lock makes concurrent sealers (several workers) wait
  // their turn; the second finds the work done.
  await sql`
    create function seal_performance(through date) returns date language plpgsql as $$
    declare
      previous date;
    begin
      select sealed_through into previous from performance_sealed for update;
      if previous is not null and previous >= through then
        return previous;
      end if;
      perform record_performance(array_agg(platform_id), array_agg(day), array_agg(brand_id), array_agg(partner_id),
        array_agg(views), array_agg(clicks), null::bigint[], null::bigint[], null::bigint[], null::bigint[])
      from (select platform_id, day, brand_id, partner_id, sum(views)::bigint as views, sum(clicks)::bigint as clicks
            from attribution_counters
            where day > coalesce(previous, '-infinity'::date) and day <= through and (views > 0 or clicks > 0)
            group by 1, 2, 3, 4) counters;
      update performance_sealed set sealed_through = through;
      return through;
    end $$`.execute(db);

  // Orders: counted, with revenue at intake, new customer and commission when the outcome is
  // set; any later change or removal moves the rollups with it, whatever day the order was for.
  await sql`
    create function record_order_performance() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        perform record_performance(array_agg(platform_id), array_agg((placed_at at time zone 'UTC')::date), array_agg(brand_id),
          array_agg(partner_id), null::bigint[], null::bigint[], array_agg(-1::bigint),
          array_agg(-(new_customer::int)::bigint), array_agg(-total_cents), array_agg(-commission_cents))
        from removed where platform_id is not null;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        perform record_performance(array_agg(platform_id), array_agg((placed_at at time zone 'UTC')::date), array_agg(brand_id),
          array_agg(partner_id), null::bigint[], null::bigint[], array_agg(1::bigint),
          array_agg((new_customer::int)::bigint), array_agg(total_cents), array_agg(commission_cents))
        from added where platform_id is not null;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger attributed_orders_performance_insert after insert on attributed_orders
    referencing new table as added for each statement execute function record_order_performance()`.execute(db);
  await sql`
    create trigger attributed_orders_performance_update after update on attributed_orders
    referencing old table as removed new table as added for each statement execute function record_order_performance()`.execute(db);
  await sql`
    create trigger attributed_orders_performance_delete after delete on attributed_orders
    referencing old table as removed for each statement execute function record_order_performance()`.execute(db);

  await sql`
    create function rebuild_performance() returns void language plpgsql as $$
    begin
      truncate performance_days, performance_pair_days;
      update performance_sealed set sealed_through = null;
      perform record_performance(array_agg(platform_id), array_agg(day), array_agg(brand_id), array_agg(partner_id),
        null::bigint[], null::bigint[],
        array_agg(orders), array_agg(new_customers), array_agg(revenue_cents), array_agg(commission_cents))
      from (select platform_id, (placed_at at time zone 'UTC')::date as day, brand_id, partner_id, count(*)::bigint as orders,
                   count(*) filter (where new_customer) as new_customers, sum(total_cents)::bigint as revenue_cents,
                   sum(commission_cents)::bigint as commission_cents
            from attributed_orders where platform_id is not null group by 1, 2, 3, 4) orders;
      perform seal_performance(performance_seal_day());
    end $$`.execute(db);
  await sql`select rebuild_performance()`.execute(db);

  // Orders are counted from attributed_orders alone (admin stats and rollups alike), so the
  // counters keep views and clicks only.
  await sql`drop index attribution_counters_brand_idx`.execute(db);
  await sql`alter table attribution_counters drop column orders`.execute(db);
  // The live days are read from the counters by brand and by partner: these indexes carry what
  // that read needs, so it never visits the table.
  await sql`create index attribution_counters_brand_idx on attribution_counters (brand_id, day)
            include (platform_id, partner_id, views, clicks)`.execute(db);
  await sql`drop index attribution_counters_partner_idx`.execute(db);
  await sql`create index attribution_counters_partner_idx on attribution_counters (partner_id, day)
            include (platform_id, brand_id, views, clicks)`.execute(db);
  // The admin stats sum a platform's orders over a range.
  await sql`create index attributed_orders_platform_idx on attributed_orders (platform_id, placed_at)
            where platform_id is not null`.execute(db);

  // Brand search: a trigram index over name, domain and categories, one field per line.
  // array_to_string is only stable in general; on text[] it is immutable, which the index needs.
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`
    create function company_search_text(name text, domain text, categories text[]) returns text
    language sql immutable parallel safe
    as $$ select lower(E'\\n' || coalesce(name, '') || E'\\n' || coalesce(domain, '') || E'\\n'
                       || coalesce(array_to_string(categories, E'\\n'), '')) $$`.execute(db);
  await sql`
    create index companies_search_idx on companies
    using gin (company_search_text(business_name, domain, categories) gin_trgm_ops)`.execute(db);
  // Results come by name: for a text most brands contain, walking names beats sorting every match.
  await sql`create index companies_name_idx on companies (business_name, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists companies_name_idx`.execute(db);
  await sql`drop index if exists companies_search_idx`.execute(db);
  await sql`drop function if exists company_search_text(text, text, text[])`.execute(db);
  await sql`drop index if exists attributed_orders_platform_idx`.execute(db);
  await sql`drop index if exists attribution_counters_partner_idx`.execute(db);
  await sql`create index attribution_counters_partner_idx on attribution_counters (partner_id, day) include (views, clicks)`.execute(db);
  await sql`drop index if exists attribution_counters_brand_idx`.execute(db);
  await sql`alter table attribution_counters add column orders bigint not null default 0`.execute(db);
  await sql`create index attribution_counters_brand_idx on attribution_counters (brand_id, day)
            include (platform_id, partner_id, views, clicks, orders)`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_delete on attributed_orders`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_update on attributed_orders`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_insert on attributed_orders`.execute(db);
  await sql`drop function if exists rebuild_performance()`.execute(db);
  await sql`drop function if exists record_order_performance()`.execute(db);
  await sql`drop function if exists seal_performance(date)`.execute(db);
  await sql`drop function if exists
            record_performance(uuid[], date[], text[], text[], bigint[], bigint[], bigint[], bigint[], bigint[], bigint[])`.execute(db);
  await sql`drop trigger if exists companies_rename_performance_partners on companies`.execute(db);
  await sql`drop function if exists rename_performance_partners()`.execute(db);
  await sql`drop trigger if exists campaigns_performance_partners on campaigns`.execute(db);
  await sql`drop function if exists add_performance_partners()`.execute(db);
  await sql`drop table if exists performance_partners`.execute(db);
  await sql`drop function if exists performance_seal_day()`.execute(db);
  await sql`drop table if exists performance_sealed`.execute(db);
  await sql`drop table if exists performance_pair_days`.execute(db);
  await sql`drop table if exists performance_days`.execute(db);
}
