-- The database functions and triggers as the migrations leave them (several are redefined by later
-- migrations), in one place to read. Written by PostgreSQL itself (pg_get_functiondef,
-- pg_get_triggerdef) from a migrated database; test/architecture/database-routines.test.ts fails
-- when this file differs from what the migrations produce. After a migration changes one:
--   npx vitest run test/architecture/database-routines.test.ts -u

-- Functions
CREATE OR REPLACE FUNCTION public.add_performance_partners()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    end $function$;

CREATE OR REPLACE FUNCTION public.company_search_text(name text, domain text, categories text[])
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ select lower(E'\n' || coalesce(name, '') || E'\n' || coalesce(domain, '') || E'\n'
                       || coalesce(array_to_string(categories, E'\n'), '')) $function$;

CREATE OR REPLACE FUNCTION public.performance_seal_day()
 RETURNS date
 LANGUAGE sql
 STABLE
AS $function$ select (now() at time zone 'UTC')::date - 7 $function$;

CREATE OR REPLACE FUNCTION public.queue_company_scoring()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into scoring_queue (company_id) values (new.id) on conflict (company_id) do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.queue_partnership_scoring()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into scoring_queue (company_id) values (new.requester_id), (new.recipient_id)
        on conflict (company_id) do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.rebuild_performance()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
  truncate performance_money_days, performance_pair_money_days;
  
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 1::int8 as orders, 1 * o.new_customer::int::int8 as new_customers,
     1 * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     1 * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor
  from (select * from attributed_orders) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
    end $function$;

CREATE OR REPLACE FUNCTION public.record_ledger_money()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 0::int8 as orders, 0::int8 as new_customers, 0::int8 as revenue_minor, 1 * o.amount::int8 as commission_minor
  from (select o.*, x.amount_minor as amount from (select * from added) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.record_order_event_money()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 0::int8 as orders, 0::int8 as new_customers, -1 * o.amount::int8 as revenue_minor, 0::int8 as commission_minor
  from (select o.*, x.amount_cents as amount from (select * from added) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      elsif tg_op = 'DELETE' then
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 0::int8 as orders, 0::int8 as new_customers, 1 * o.amount::int8 as revenue_minor, 0::int8 as commission_minor
  from (select o.*, x.amount_cents as amount from (select * from removed) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      else
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 0::int8 as orders, 0::int8 as new_customers, 1 * o.amount::int8 as revenue_minor, 0::int8 as commission_minor
  from (select o.*, x.amount_cents as amount from (select * from removed) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id) o
  where o.brand_id is not null and o.partner_id is not null union all 
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 0::int8 as orders, 0::int8 as new_customers, -1 * o.amount::int8 as revenue_minor, 0::int8 as commission_minor
  from (select o.*, x.amount_cents as amount from (select * from added) x
     join attributed_orders o on o.store_domain = x.store_domain and o.order_id = x.order_id) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.record_order_money()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 1::int8 as orders, 1 * o.new_customer::int::int8 as new_customers,
     1 * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     1 * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor
  from (select * from added) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      elsif tg_op = 'DELETE' then
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, -1::int8 as orders, -1 * o.new_customer::int::int8 as new_customers,
     -1 * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     -1 * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor
  from (select * from removed) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      else
        
    with delta as (
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, -1::int8 as orders, -1 * o.new_customer::int::int8 as new_customers,
     -1 * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     -1 * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor
  from (select store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents from removed except all select store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents from added) o
  where o.brand_id is not null and o.partner_id is not null union all 
  select o.platform_id, (o.placed_at at time zone 'UTC')::date as day, o.brand_id, o.partner_id, o.currency, 1::int8 as orders, 1 * o.new_customer::int::int8 as new_customers,
     1 * (o.total_cents - coalesce((select sum(e.amount_cents) from order_events e
                                          where e.store_domain = o.store_domain and e.order_id = o.order_id), 0))::int8 as revenue_minor,
     1 * coalesce((select sum(l.amount_minor) from commission_ledger l
                         where l.store_domain = o.store_domain and l.order_id = o.order_id), 0)::int8 as commission_minor
  from (select store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents from added except all select store_domain, order_id, platform_id, placed_at, brand_id, partner_id, currency, new_customer, total_cents from removed) o
  where o.brand_id is not null and o.partner_id is not null),
    by_day as (
      insert into performance_money_days as t (company_id, side, day, platform_id, currency, orders, new_customers, revenue_minor, commission_minor)
      select side.company_id, side.role, d.day, d.platform_id, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8
      from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
      where side.role = 'shown' or d.partner_id <> d.brand_id
      group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4, 5
      on conflict (company_id, side, day, platform_id, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor
    )
    insert into performance_pair_money_days as t (brand_id, partner_id, day, currency, orders, new_customers, revenue_minor, commission_minor)
    select d.brand_id, d.partner_id, d.day, d.currency, sum(orders)::int8, sum(new_customers)::int8, sum(revenue_minor)::int8, sum(commission_minor)::int8 from delta d
    group by 1, 2, 3, 4 having sum(orders) <> 0 or sum(new_customers) <> 0 or sum(revenue_minor) <> 0 or sum(commission_minor) <> 0 order by 1, 2, 3, 4
    on conflict (brand_id, partner_id, day, currency) do update set orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_minor = t.revenue_minor + excluded.revenue_minor, commission_minor = t.commission_minor + excluded.commission_minor;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.record_order_performance()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    end $function$;

CREATE OR REPLACE FUNCTION public.record_performance(platform_ids uuid[], days date[], brand_ids text[], partner_ids text[], view_counts bigint[], click_counts bigint[], order_counts bigint[], new_customer_counts bigint[], revenue bigint[], commission bigint[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      with delta as (
        select d.platform_id, d.day, d.brand_id, d.partner_id,
               coalesce(d.views, 0) as views, coalesce(d.clicks, 0) as clicks, coalesce(d.orders, 0) as orders,
               coalesce(d.new_customers, 0) as new_customers, coalesce(d.revenue_cents, 0) as revenue_cents,
               coalesce(d.commission_cents, 0) as commission_cents
        from unnest(
          platform_ids, days, brand_ids, partner_ids, view_counts, click_counts, order_counts, new_customer_counts, revenue, commission
        )
               as d(platform_id, day, brand_id, partner_id, views, clicks, orders, new_customers, revenue_cents, commission_cents)
        where d.platform_id is not null
      ),
      by_day as (
        insert into performance_days as t (company_id, side, day, platform_id, views, clicks, orders, new_customers, revenue_cents, commission_cents)
        select side.company_id, side.role, d.day, d.platform_id, sum(views), sum(clicks), sum(orders), sum(new_customers), sum(revenue_cents), sum(commission_cents)
        from delta d cross join lateral (values (d.brand_id, 'shown'), (d.partner_id, 'received')) as side(company_id, role)
        where side.role = 'shown' or d.partner_id <> d.brand_id
        group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (company_id, side, day, platform_id) do update set views = t.views + excluded.views, clicks = t.clicks + excluded.clicks, orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_cents = t.revenue_cents + excluded.revenue_cents, commission_cents = t.commission_cents + excluded.commission_cents
      )
      insert into performance_pair_days as t (brand_id, partner_id, day, views, clicks, orders, new_customers, revenue_cents, commission_cents)
      select brand_id, partner_id, day, sum(views), sum(clicks), sum(orders), sum(new_customers), sum(revenue_cents), sum(commission_cents) from delta group by 1, 2, 3 order by 1, 2, 3
      on conflict (brand_id, partner_id, day) do update set views = t.views + excluded.views, clicks = t.clicks + excluded.clicks, orders = t.orders + excluded.orders, new_customers = t.new_customers + excluded.new_customers, revenue_cents = t.revenue_cents + excluded.revenue_cents, commission_cents = t.commission_cents + excluded.commission_cents;
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_charge_hold_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'UPDATE' and old.settled_at is null
         and new.store_domain = old.store_domain and new.order_id = old.order_id
         and (new.settled_at is null or (new.reason = old.reason and new.held_at = old.held_at)) then
        return new;
      end if;
      raise exception 'commission_charge_holds: a hold is re-held or settled once, a settled hold never changes, none is deleted'
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_closed_money_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception '% is append-only: it cannot be truncated', tg_table_name using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_commerce_charge_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception 'commission_commerce_charges is append-only: a charge is noted once and never changes'
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_ledger_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'UPDATE' and old.commerce_charge_id is null
         and (to_jsonb(new) - 'commerce_charge_id') = (to_jsonb(old) - 'commerce_charge_id') then
        return new;
      end if;
      raise exception 'commission_ledger is append-only: correct an entry with an entry of the opposite sign'
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_ledger_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception 'commission_ledger is append-only: it cannot be truncated'
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_statement_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception '% is closed: a closed statement never changes', tg_table_name using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.rename_performance_partners()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update performance_partners p set other_name = renamed.business_name
      from new_companies renamed join old_companies previous on previous.id = renamed.id
      where p.other_id = renamed.id and renamed.business_name is distinct from previous.business_name;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.seal_performance(through date)
 RETURNS date
 LANGUAGE plpgsql
AS $function$
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
    end $function$;

-- Triggers
CREATE TRIGGER attributed_orders_money_delete AFTER DELETE ON attributed_orders REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION record_order_money();
CREATE TRIGGER attributed_orders_money_insert AFTER INSERT ON attributed_orders REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_money();
CREATE TRIGGER attributed_orders_money_update AFTER UPDATE ON attributed_orders REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_money();
CREATE TRIGGER attributed_orders_performance_delete AFTER DELETE ON attributed_orders REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION record_order_performance();
CREATE TRIGGER attributed_orders_performance_insert AFTER INSERT ON attributed_orders REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_performance();
CREATE TRIGGER attributed_orders_performance_update AFTER UPDATE ON attributed_orders REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_performance();
CREATE TRIGGER campaigns_performance_partners AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_campaigns FOR EACH STATEMENT EXECUTE FUNCTION add_performance_partners();
CREATE TRIGGER commission_charge_holds_no_truncate BEFORE TRUNCATE ON commission_charge_holds FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
CREATE TRIGGER commission_charge_holds_settled_once BEFORE DELETE OR UPDATE ON commission_charge_holds FOR EACH ROW EXECUTE FUNCTION refuse_charge_hold_change();
CREATE TRIGGER commission_commerce_charges_append_only BEFORE DELETE OR UPDATE ON commission_commerce_charges FOR EACH ROW EXECUTE FUNCTION refuse_commerce_charge_change();
CREATE TRIGGER commission_commerce_charges_no_truncate BEFORE TRUNCATE ON commission_commerce_charges FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
CREATE TRIGGER commission_ledger_append_only BEFORE DELETE OR UPDATE ON commission_ledger FOR EACH ROW EXECUTE FUNCTION refuse_ledger_change();
CREATE TRIGGER commission_ledger_money_insert AFTER INSERT ON commission_ledger REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_ledger_money();
CREATE TRIGGER commission_ledger_no_truncate BEFORE TRUNCATE ON commission_ledger FOR EACH STATEMENT EXECUTE FUNCTION refuse_ledger_truncate();
CREATE TRIGGER companies_queue_scoring AFTER INSERT OR UPDATE OF business_size, country, categories, product_count, commerce_platform ON companies FOR EACH ROW EXECUTE FUNCTION queue_company_scoring();
CREATE TRIGGER companies_rename_performance_partners AFTER UPDATE ON companies REFERENCING OLD TABLE AS old_companies NEW TABLE AS new_companies FOR EACH STATEMENT EXECUTE FUNCTION rename_performance_partners();
CREATE TRIGGER order_events_money_delete AFTER DELETE ON order_events REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION record_order_event_money();
CREATE TRIGGER order_events_money_insert AFTER INSERT ON order_events REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_event_money();
CREATE TRIGGER order_events_money_update AFTER UPDATE ON order_events REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_order_event_money();
CREATE TRIGGER partnerships_queue_scoring AFTER INSERT OR UPDATE OF status ON partnerships FOR EACH ROW EXECUTE FUNCTION queue_partnership_scoring();
CREATE TRIGGER statement_closings_closed BEFORE DELETE OR UPDATE ON statement_closings FOR EACH ROW EXECUTE FUNCTION refuse_statement_change();
CREATE TRIGGER statement_closings_no_truncate BEFORE TRUNCATE ON statement_closings FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
CREATE TRIGGER statement_entries_closed BEFORE DELETE OR UPDATE ON statement_entries FOR EACH ROW EXECUTE FUNCTION refuse_statement_change();
CREATE TRIGGER statement_entries_no_truncate BEFORE TRUNCATE ON statement_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
CREATE TRIGGER statement_totals_closed BEFORE DELETE OR UPDATE ON statement_totals FOR EACH ROW EXECUTE FUNCTION refuse_statement_change();
CREATE TRIGGER statement_totals_no_truncate BEFORE TRUNCATE ON statement_totals FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
CREATE TRIGGER statements_closed BEFORE DELETE OR UPDATE ON statements FOR EACH ROW EXECUTE FUNCTION refuse_statement_change();
CREATE TRIGGER statements_no_truncate BEFORE TRUNCATE ON statements FOR EACH STATEMENT EXECUTE FUNCTION refuse_closed_money_truncate();
