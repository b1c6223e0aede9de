import { sql, type Kysely } from 'kysely';

const FIGURES = ['views', 'clicks', 'orders', 'new_customers', 'revenue_cents', 'commission_cents'] as const;
const figureColumns = sql.raw(FIGURES.map((figure) => `${figure} bigint not null default 0`).join(',\n'));
const addExcluded = sql.raw(FIGURES.map((figure) => `${figure} = t.${figure} + excluded.${figure}`).join(', '));
const sums = sql.raw(FIGURES.map((figure) => `sum(${figure})`).join(', '));
const figureList = sql.raw(FIGURES.join(', '));

/**
 * The performance page's rollups and the brand search index.
 *
 * A brand's performance is read from daily rollups instead of the raw counters and orders,
 * maintained in the same transaction as every write of those: per brand, day and platform from
 * both sides, offers the brand showed and its own offer shown by others (totals, chart,
 * per-platform table), and per showing brand, partner and day (the per-partner table, one page
 * of partners at a time, and the CSV export). Rows carry the writer's shard like the counters,
 * so the group-commit writes, each on its own shard, never wait on each other's row locks;
 * orders write on a shard of their own (-1) that group commit never uses. `record_performance` is the
 * one place that turns link-level deltas into rollup rows: `add_attribution_counts` (the only
 * writer of counters) and the trigger on attributed_orders call it, and `rebuild_performance`
 * recomputes everything from the raw tables (the backfill below).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table performance_days (
      company_id text not null,
      day date not null,
      platform_id uuid not null,
      shard smallint not null,
      ${figureColumns},
      primary key (company_id, day, platform_id, shard)
    ) with (fillfactor = 70)`.execute(db);
  // One row per showing (brand, partner), not one per side: the hot path writes half the rows,
  // and a brand's figures with another are its rows as the showing brand plus those as the partner.
  await sql`
    create table performance_pair_days (
      brand_id text not null,
      partner_id text not null,
      day date not null,
      shard smallint not null,
      ${figureColumns},
      primary key (brand_id, partner_id, day, shard)
    ) with (fillfactor = 70)`.execute(db);
  // A page of partners probes the primary key from both ends of a pair; the CSV export reads
  // all of a brand's pairs in a range, by day. Figures are in no index, so an update that keeps
  // its row's page (fillfactor) touches no index at all.
  await sql`create index performance_pair_days_brand_day_idx on performance_pair_days (brand_id, day)`.execute(db);
  await sql`create index performance_pair_days_partner_day_idx on performance_pair_days (partner_id, day)`.execute(db);
  // Every brand a brand has figures with, and its name: the per-partner table pages through it
  // by name without reading the companies (the trigger below keeps the names current).
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
    create function rename_performance_partners() returns trigger language plpgsql as $$
    begin
      update performance_partners p set other_name = renamed.business_name
      from new_companies renamed join old_companies previous on previous.id = renamed.id
      where p.other_id = renamed.id and renamed.business_name is distinct from previous.business_name;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger companies_rename_performance_partners after update on companies
    referencing old table as old_companies new table as new_companies for each statement execute function rename_performance_partners()`.execute(db);

  await sql`
    create function record_performance(
      platform_ids uuid[], days date[], brand_ids text[], partner_ids text[], shards smallint[],
      view_counts bigint[], click_counts bigint[], order_counts bigint[], new_customer_counts bigint[], revenue bigint[], commission bigint[]
    ) returns void language plpgsql as $$
    begin
      -- Rows go in key order, so writers touching overlapping rows lock them in the same order.
      with delta as (
        select d.platform_id, d.day, d.brand_id, d.partner_id, d.shard,
               coalesce(d.views, 0) as views, coalesce(d.clicks, 0) as clicks, coalesce(d.orders, 0) as orders,
               coalesce(d.new_customers, 0) as new_customers, coalesce(d.revenue_cents, 0) as revenue_cents,
               coalesce(d.commission_cents, 0) as commission_cents
        from unnest(platform_ids, days, brand_ids, partner_ids, shards, view_counts, click_counts, order_counts, new_customer_counts, revenue, commission)
               as d(platform_id, day, brand_id, partner_id, shard, views, clicks, orders, new_customers, revenue_cents, commission_cents)
        where d.platform_id is not null
      ),
      -- A showing counts for the showing brand and, unless it showed its own offer, for the partner.
      by_day as (
        insert into performance_days as t (company_id, day, platform_id, shard, ${figureList})
        select side.company_id, d.day, d.platform_id, d.shard, ${sums}
        from delta d cross join lateral (values (d.brand_id), (d.partner_id)) as side(company_id)
        where side.company_id = d.brand_id or d.partner_id <> d.brand_id
        group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (company_id, day, platform_id, shard) do update set ${addExcluded}
      ),
      by_pair as (
        insert into performance_pair_days as t (brand_id, partner_id, day, shard, ${figureList})
        select brand_id, partner_id, day, shard, ${sums} from delta group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (brand_id, partner_id, day, shard) do update set ${addExcluded}
        -- xmax is 0 only on a row this statement inserted: a pair's first row of a day and shard.
        returning t.brand_id, t.partner_id, t.xmax = 0 as inserted
      )
      -- Only a pair's new rows can bring a brand a new partner, so updates skip the directory.
      insert into performance_partners (company_id, other_id, other_name)
      select pair.company_id, pair.other_id, (select business_name from companies where id = pair.other_id)
      from (
        select distinct side.company_id, side.other_id
        from by_pair p cross join lateral (values (p.brand_id, p.partner_id), (p.partner_id, p.brand_id)) as side(company_id, other_id)
        where p.inserted and (side.company_id = p.brand_id or p.partner_id <> p.brand_id)
      ) pair
      order by 1, 2
      on conflict do nothing;
    end $$`.execute(db);

  // Adds views, clicks and orders to the counters and the rollups in one statement.
  await sql`
    create function add_attribution_counts(
      platform_ids uuid[], days date[], campaign_ids text[], brand_ids text[], partner_ids text[], shards smallint[],
      view_counts bigint[], click_counts bigint[], order_counts bigint[]
    ) returns void language plpgsql as $$
    begin
      insert into attribution_counters as c (platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks, orders)
      select d.platform_id, d.day, d.campaign_id, d.brand_id, d.partner_id, d.shard, d.views, d.clicks, d.orders
      from unnest(platform_ids, days, campaign_ids, brand_ids, partner_ids, shards, view_counts, click_counts, order_counts)
             as d(platform_id, day, campaign_id, brand_id, partner_id, shard, views, clicks, orders)
      order by 1, 2, 3, 4, 5, 6
      on conflict (platform_id, day, campaign_id, brand_id, partner_id, shard) do update set
        views = c.views + excluded.views, clicks = c.clicks + excluded.clicks, orders = c.orders + excluded.orders;
      perform record_performance(platform_ids, days, brand_ids, partner_ids, shards, view_counts, click_counts, order_counts, null::bigint[], null::bigint[], null::bigint[]);
    end $$`.execute(db);

  // Orders: revenue at intake, new customer and commission when the outcome is set; any later
  // change or removal moves the rollups with it.
  await sql`
    create function record_order_performance() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        perform record_performance(array_agg(platform_id), array_agg((placed_at at time zone 'UTC')::date), array_agg(brand_id),
          array_agg(partner_id), array_agg(-1::smallint), null::bigint[], null::bigint[], null::bigint[],
          array_agg(-(new_customer::int)::bigint), array_agg(-total_cents), array_agg(-commission_cents))
        from removed where platform_id is not null;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        perform record_performance(array_agg(platform_id), array_agg((placed_at at time zone 'UTC')::date), array_agg(brand_id),
          array_agg(partner_id), array_agg(-1::smallint), null::bigint[], null::bigint[], null::bigint[],
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
      truncate performance_days, performance_pair_days, performance_partners;
      perform record_performance(array_agg(platform_id), array_agg(day), array_agg(brand_id), array_agg(partner_id), array_agg(shard),
        array_agg(views), array_agg(clicks), array_agg(orders), null::bigint[], null::bigint[], null::bigint[])
      from (select platform_id, day, brand_id, partner_id, shard, sum(views)::bigint as views, sum(clicks)::bigint as clicks, sum(orders)::bigint as orders
            from attribution_counters group by 1, 2, 3, 4, 5) counters;
      perform record_performance(array_agg(platform_id), array_agg(day), array_agg(brand_id), array_agg(partner_id), array_agg(-1::smallint),
        null::bigint[], null::bigint[], null::bigint[], array_agg(new_customers), array_agg(revenue_cents), array_agg(commission_cents))
      from (select platform_id, (placed_at at time zone 'UTC')::date as day, brand_id, partner_id,
                   count(*) filter (where new_customer) as new_customers, sum(total_cents)::bigint as revenue_cents, sum(commission_cents)::bigint as commission_cents
            from attributed_orders where platform_id is not null group by 1, 2, 3, 4) orders;
    end $$`.execute(db);
  await sql`select rebuild_performance()`.execute(db);

  // The dashboard no longer reads counters by showing brand; one index less to keep on the hot path.
  await sql`drop index attribution_counters_brand_idx`.execute(db);
  // The admin stats sum a platform's orders over a range.
  await sql`create index attributed_orders_platform_idx on attributed_orders (platform_id, placed_at) where platform_id is not null`.execute(db);

  // Brand search: a trigram index over name, domain and categories, one field per line.
  // array_to_string is only stable in general; on text[] it is immutable, which the index needs.
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`
    create function company_search_text(name text, domain text, categories text[]) returns text
    language sql immutable parallel safe
    as $$ select lower(E'\\n' || coalesce(name, '') || E'\\n' || coalesce(domain, '') || E'\\n' || coalesce(array_to_string(categories, E'\\n'), '')) $$`.execute(db);
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
  await sql`create index if not exists attribution_counters_brand_idx on attribution_counters (brand_id, day) include (platform_id, partner_id, views, clicks, orders)`.execute(db);
  await sql`drop trigger if exists companies_rename_performance_partners on companies`.execute(db);
  await sql`drop function if exists rename_performance_partners()`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_delete on attributed_orders`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_update on attributed_orders`.execute(db);
  await sql`drop trigger if exists attributed_orders_performance_insert on attributed_orders`.execute(db);
  await sql`drop function if exists rebuild_performance()`.execute(db);
  await sql`drop function if exists record_order_performance()`.execute(db);
  await sql`drop function if exists add_attribution_counts(uuid[], date[], text[], text[], text[], smallint[], bigint[], bigint[], bigint[])`.execute(db);
  await sql`drop function if exists record_performance(uuid[], date[], text[], text[], smallint[], bigint[], bigint[], bigint[], bigint[], bigint[], bigint[])`.execute(db);
  await sql`drop table if exists performance_partners`.execute(db);
  await sql`drop table if exists performance_pair_days`.execute(db);
  await sql`drop table if exists performance_days`.execute(db);
}
