import { domainToASCII } from 'node:url';
import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Stored domains in their canonical form (issue 14): the rule of src/shared/domain.ts (SPEC 4.2
 * plus UTS-46), which every entry point now applies, so café.example stored before is found as
 * xn--caf-dma.example. Canonicalizing needs UTS-46, which SQL does not have: the distinct stored
 * values that may not be canonical are read, mapped here, and written back by one statement per
 * table, the mapping passed as two arrays.
 *
 * When forms of one domain collapse into one where the domain must be unique:
 * - platform_brands (one record per platform and domain, SPEC 4.2): merged into one record, which
 *   keeps the first creation time and the state of the latest sync (its status, end date and last
 *   business name sent); the other rows are deleted.
 * - companies: the oldest company takes the canonical domain; the others lose their domain (null),
 *   so their referral links no longer open a store that is another brand's.
 * - merchant_stores, setup_jobs, attributed_orders, store_customers: the row already holding the
 *   canonical form, else the oldest, takes it; the others keep their stored form.
 * Every row merged, left without a domain or left as stored (also when its domain has no canonical
 * form) is listed in domain_canonicalization_report for support to settle by hand. The sandbox
 * commerce platform's tables are its own records, not the service's, and are left as they are.
 */

// Values that can differ from their canonical form: anything but lowercase ASCII labels, a leading
// www., a last label UTS-46 reads as a number (an IPv4 host), and punycode labels (checked).
const mayNotBeCanonical = (column: RawBuilder<unknown>) =>
  sql`(${column} !~ '^[a-z0-9_-]+(\\.[a-z0-9_-]+)*$' or ${column} like 'www.%'
       or ${column} ~ '(^|\\.)([0-9]+|0x[0-9a-f]*)$' or ${column} like '%xn--%')`;

interface Mapping {
  stored: string[];
  canonical: string[];
  /** Stored values that have no canonical form. */
  unmappable: string[];
}

async function mappingOf(db: Kysely<unknown>, table: string, column: string): Promise<Mapping> {
  const { rows } = await sql<{ value: string }>`
    select distinct ${sql.ref(column)} as value from ${sql.table(table)}
    where ${sql.ref(column)} is not null and ${mayNotBeCanonical(sql.ref(column))}`.execute(db);
  const mapping: Mapping = { stored: [], canonical: [], unmappable: [] };
  for (const { value } of rows) {
    const domain = canonicalDomain(value);
    if (domain === null) mapping.unmappable.push(value);
    else if (domain !== value) {
      mapping.stored.push(value);
      mapping.canonical.push(domain);
    }
  }
  return mapping;
}

const mappingRows = (mapping: Mapping) =>
  sql`select * from unnest(${mapping.stored}::text[], ${mapping.canonical}::text[]) as pair(stored, canonical)`;

async function reportUnmappable(
  db: Kysely<unknown>,
  table: string,
  column: string,
  rowKey: RawBuilder<unknown>,
  mapping: Mapping,
): Promise<void> {
  if (mapping.unmappable.length === 0) return;
  await sql`
    insert into domain_canonicalization_report (table_name, row_key, stored_domain, canonical_domain, outcome)
    select ${table}::text, ${rowKey}, ${sql.ref(column)}, null, 'left_as_stored'
    from ${sql.table(table)} t where ${sql.ref(column)} = any(${mapping.unmappable}::text[])`.execute(db);
}

async function canonicalizeClaims(db: Kysely<unknown>): Promise<void> {
  const mapping = await mappingOf(db, 'brand_claims', 'domain');
  await reportUnmappable(db, 'brand_claims', 'domain', sql`t.id::text`, mapping);
  if (mapping.stored.length === 0) return;
  await sql`
    update brand_claims t set domain = pair.canonical from (${mappingRows(mapping)}) pair
    where t.domain = pair.stored`.execute(db);
}

async function canonicalizePlatformBrands(db: Kysely<unknown>): Promise<void> {
  const mapping = await mappingOf(db, 'platform_brands', 'domain');
  await reportUnmappable(db, 'platform_brands', 'domain', sql`t.platform_id::text`, mapping);
  if (mapping.stored.length === 0) return;
  // The record kept for each platform and canonical domain is the one already holding it, if any.
  await sql`
    with pair as (${mappingRows(mapping)}),
    member as (
      select b.platform_id, b.domain, coalesce(pair.canonical, b.domain) as canonical,
             b.business_name, b.status, b.end_date, b.created_at, b.updated_at
      from platform_brands b left join pair on pair.stored = b.domain
      where pair.stored is not null or b.domain in (select canonical from pair)
    ),
    grouped as (
      select platform_id, canonical,
             (array_agg(domain order by domain = canonical desc, created_at, domain))[1] as keeper,
             (array_agg(business_name order by updated_at desc, domain) filter (where business_name is not null))[1] as business_name,
             (array_agg(status order by updated_at desc, domain))[1] as status,
             (array_agg(end_date order by updated_at desc, domain))[1] as end_date,
             min(created_at) as created_at,
             max(updated_at) as updated_at
      from member group by platform_id, canonical
    ),
    removed as (
      delete from platform_brands b
      using member m join grouped g on g.platform_id = m.platform_id and g.canonical = m.canonical
      where b.platform_id = m.platform_id and b.domain = m.domain and m.domain <> g.keeper
      returning b.platform_id
    ),
    kept as (
      update platform_brands b
      set domain = g.canonical, business_name = g.business_name, status = g.status, end_date = g.end_date,
          created_at = g.created_at, updated_at = g.updated_at
      from grouped g
      where b.platform_id = g.platform_id and b.domain = g.keeper
      returning b.platform_id
    )
    insert into domain_canonicalization_report (table_name, row_key, stored_domain, canonical_domain, outcome)
    select 'platform_brands', m.platform_id::text, m.domain, m.canonical, 'merged'
    from member m join grouped g on g.platform_id = m.platform_id and g.canonical = m.canonical
    where m.domain <> g.keeper`.execute(db);
}

async function canonicalizeCompanies(db: Kysely<unknown>): Promise<void> {
  const mapping = await mappingOf(db, 'companies', 'domain');
  await reportUnmappable(db, 'companies', 'domain', sql`t.id`, mapping);
  if (mapping.stored.length === 0) return;
  // Two statements: a unique column cannot hand its value from one row to another within one.
  await sql`
    with pair as (${mappingRows(mapping)}),
    member as (
      select c.id, c.domain, coalesce(pair.canonical, c.domain) as canonical,
             row_number() over (partition by coalesce(pair.canonical, c.domain) order by c.created_at, c.id) as place
      from companies c left join pair on pair.stored = c.domain
      where pair.stored is not null or c.domain in (select canonical from pair)
    ),
    detached as (
      update companies c set domain = null from member m where c.id = m.id and m.place > 1
      returning c.id
    )
    insert into domain_canonicalization_report (table_name, row_key, stored_domain, canonical_domain, outcome)
    select 'companies', id, domain, canonical, 'domain_removed' from member where place > 1`.execute(db);
  await sql`
    update companies c set domain = pair.canonical from (${mappingRows(mapping)}) pair
    where c.domain = pair.stored`.execute(db);
}

/** A table whose domain is unique together with the scope columns (none: the domain alone). */
interface KeepFirst {
  table: string;
  column: string;
  scope: string[];
  /** Orders the rows oldest first. */
  age: string | null;
  rowKey: string;
}

const KEEP_FIRST: KeepFirst[] = [
  { table: 'merchant_stores', column: 'domain', scope: [], age: 'created_at', rowKey: 'domain' },
  { table: 'setup_jobs', column: 'domain', scope: [], age: 'started_at', rowKey: 'domain' },
  { table: 'attributed_orders', column: 'store_domain', scope: ['order_id'], age: 'received_at', rowKey: 'order_id' },
  { table: 'store_customers', column: 'store_domain', scope: ['customer_ref'], age: null, rowKey: 'customer_ref' },
];

async function canonicalizeKeepingFirst(db: Kysely<unknown>, spec: KeepFirst): Promise<void> {
  const { table, column, scope } = spec;
  const mapping = await mappingOf(db, table, column);
  await reportUnmappable(db, table, column, sql`t.${sql.ref(spec.rowKey)}::text`, mapping);
  if (mapping.stored.length === 0) return;
  const same = (left: string, right: string) =>
    scope.length === 0
      ? sql`true`
      : sql.join(
          scope.map((name) => sql`${sql.ref(`${left}.${name}`)} = ${sql.ref(`${right}.${name}`)}`),
          sql` and `,
        );
  const partition = sql.join([...scope.map((name) => sql.ref(`t.${name}`)), sql`pair.canonical`]);
  const oldestFirst = spec.age === null ? sql`t.${sql.ref(column)}` : sql`t.${sql.ref(spec.age)}, t.${sql.ref(column)}`;
  await sql`
    with pair as (${mappingRows(mapping)}),
    candidate as (
      select t.*, t.${sql.ref(column)} as stored, pair.canonical,
             exists (select 1 from ${sql.table(table)} holder
                     where ${same('holder', 't')} and holder.${sql.ref(column)} = pair.canonical) as taken,
             row_number() over (partition by ${partition} order by ${oldestFirst}) as place
      from ${sql.table(table)} t join pair on pair.stored = t.${sql.ref(column)}
    ),
    moved as (
      update ${sql.table(table)} t set ${sql.ref(column)} = c.canonical from candidate c
      where not c.taken and c.place = 1 and t.${sql.ref(column)} = c.stored and ${same('t', 'c')}
      returning 1
    )
    insert into domain_canonicalization_report (table_name, row_key, stored_domain, canonical_domain, outcome)
    select ${table}::text, c.${sql.ref(spec.rowKey)}::text, c.stored, c.canonical, 'left_as_stored'
    from candidate c where c.taken or c.place > 1`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table domain_canonicalization_report (
      id bigint generated always as identity primary key,
      table_name text not null,
      row_key text not null,
      stored_domain text not null,
      canonical_domain text,
      outcome text not null check (outcome in ('merged', 'domain_removed', 'left_as_stored')),
      created_at timestamptz not null default now()
    )`.execute(db);
  await canonicalizePlatformBrands(db);
  await canonicalizeCompanies(db);
  await canonicalizeClaims(db);
  for (const spec of KEEP_FIRST) await canonicalizeKeepingFirst(db, spec);
}

/** Drops the report; the domains stay canonical (the earlier code reads them as they are). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists domain_canonicalization_report`.execute(db);
}

/*
 * The domain rule as it stood when this migration landed (parseDomain of src/shared/domain.ts,
 * issue 14), frozen here so a database migrated later gets the result every other one got: the
 * live rule may change, a landed migration may not. Only the answer is kept, not the problem text.
 */
const WEB_SCHEMES = ['http', 'https'];
const SCHEME_WITH_AUTHORITY = /^([a-z][a-z0-9+.-]*):\/\//i;
const MALFORMED_WEB_SCHEME = /^(https?):/i;
const SCHEME_WITHOUT_AUTHORITY = /^([a-z][a-z0-9+-]*):(?!\d+(?:[/?#]|$))(?=.)/i;
const PORT = /^\d{1,5}$/;
const MAX_PORT = 65535;
const LEADING_WWW = 'www.';
const CANONICAL_CHARACTERS = /^[a-z0-9._-]+$/;
const MAX_DOMAIN_LENGTH = 100;

function canonicalDomain(input: string): string | null {
  let rest = input.trim();
  const scheme = SCHEME_WITH_AUTHORITY.exec(rest);
  if (scheme) {
    if (!WEB_SCHEMES.includes(scheme[1]!.toLowerCase())) return null;
    rest = rest.slice(scheme[0].length);
  }
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  if (authority.includes('@') || authority.startsWith('[') || /\s/.test(authority)) return null;
  if (SCHEME_WITH_AUTHORITY.exec(rest) ?? MALFORMED_WEB_SCHEME.exec(rest) ?? SCHEME_WITHOUT_AUTHORITY.exec(rest)) return null;
  let host = authority;
  const portStart = authority.indexOf(':');
  if (portStart !== -1) {
    const port = authority.slice(portStart + 1);
    if (!PORT.test(port) || Number(port) > MAX_PORT) return null;
    host = authority.slice(0, portStart);
  }
  if (host.includes('\\')) return null;
  const ascii = domainToASCII(host);
  if (ascii === '' && host !== '') return null;
  const domain = ascii.startsWith(LEADING_WWW) ? ascii.slice(LEADING_WWW.length) : ascii;
  if (domain.startsWith(LEADING_WWW) || domain.length === 0 || !CANONICAL_CHARACTERS.test(domain)) return null;
  if (domain.split('.').includes('') || domain.length > MAX_DOMAIN_LENGTH) return null;
  return domain;
}
