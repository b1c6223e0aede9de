import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';

export interface BrandKeyRecord {
  keyId: string;
  companyId: string;
  keyHash: string;
  environment: 'test' | 'live';
}

export interface PlatformKeyRecord {
  keyId: string;
  platformId: string;
  keyHash: string;
  environment: 'test' | 'live';
  expiresAt: Date | null;
  platformActive: boolean;
}

export interface PlatformRecord {
  id: string;
  active: boolean;
  offerTypes: string[];
}

export async function findActiveBrandKey(db: Db, keyHash: string): Promise<BrandKeyRecord | undefined> {
  const row = await db
    .selectFrom('brand_api_keys')
    .select(['id', 'company_id', 'key_hash', 'environment'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && { keyId: row.id, companyId: row.company_id, keyHash: row.key_hash, environment: row.environment };
}

export async function findUnrevokedPlatformKey(db: Db, keyHash: string): Promise<PlatformKeyRecord | undefined> {
  const row = await db
    .selectFrom('platform_keys as k')
    .innerJoin('platforms as p', 'p.id', 'k.platform_id')
    .select(['k.id', 'k.platform_id', 'k.key_hash', 'k.environment', 'k.expires_at', 'p.active'])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  return (
    row && {
      keyId: row.id,
      platformId: row.platform_id,
      keyHash: row.key_hash,
      environment: row.environment,
      expiresAt: row.expires_at,
      platformActive: row.active,
    }
  );
}

export async function findPlatform(db: Db, platformId: string): Promise<PlatformRecord | undefined> {
  const row = await db.selectFrom('platforms').select(['id', 'active', 'offer_types']).where('id', '=', platformId).executeTakeFirst();
  return row && { id: row.id, active: row.active, offerTypes: row.offer_types };
}

/** Records that a brand called through a platform: first sighting inserts, later ones move last_seen_at. */
export async function upsertPlatformCompanyLinks(
  db: Db,
  links: Array<{ platformId: string; companyId: string; seenAt: Date }>,
): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('platform_companies')
    .values(
      links.map((link) => ({
        platform_id: link.platformId,
        company_id: link.companyId,
        first_seen_at: link.seenAt,
        last_seen_at: link.seenAt,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['platform_id', 'company_id']).doUpdateSet({
        last_seen_at: sql`greatest(platform_companies.last_seen_at, excluded.last_seen_at)`,
      }),
    )
    .execute();
}

/** Last use of keys, written in one statement for a whole batch. */
export async function touchKeys(
  db: Db,
  table: 'brand_api_keys' | 'platform_keys',
  uses: Array<{ keyId: string; usedAt: Date }>,
): Promise<void> {
  if (uses.length === 0) return;
  const values = sql.join(uses.map((use) => sql`(${use.keyId}::uuid, ${use.usedAt}::timestamptz)`));
  await sql`
    update ${sql.table(table)} as k set last_used_at = greatest(k.last_used_at, v.used_at)
    from (values ${values}) as v(id, used_at)
    where k.id = v.id`.execute(db);
}

export async function listPlatformKeys(db: Db, platformId: string) {
  const rows = await db
    .selectFrom('platform_keys')
    .select(['id', 'key_last_four', 'environment', 'expires_at', 'revoked_at', 'created_at', 'last_used_at'])
    .where('platform_id', '=', platformId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    keyId: row.id,
    lastFour: row.key_last_four,
    environment: row.environment,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }));
}

export async function insertPlatformKey(
  db: Db,
  key: { platformId: string; keyHash: string; lastFour: string; environment: 'test' | 'live'; expiresAt: Date | null },
): Promise<string> {
  const row = await db
    .insertInto('platform_keys')
    .values({
      platform_id: key.platformId,
      key_hash: key.keyHash,
      key_last_four: key.lastFour,
      environment: key.environment,
      expires_at: key.expiresAt,
    })
    .onConflict((oc) => oc.column('key_hash').doUpdateSet({ expires_at: key.expiresAt }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Revokes a key once; revoking it again keeps the first date. Undefined when there is no such key. */
export async function revokeKey(db: Db, table: 'platform_keys' | 'brand_api_keys', keyId: string): Promise<Date | undefined> {
  const row = await db
    .updateTable(table)
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', keyId)
    .returning('revoked_at')
    .executeTakeFirst();
  return row?.revoked_at ?? undefined;
}

export type KeyIssuer = 'staff' | 'support' | 'fixture';

/**
 * Every key of a brand, revoked ones included, with who issued it: the staff account's name and
 * email while it still belongs to this brand (a person who left the brand is not named to it).
 */
export async function listBrandKeys(db: Db, companyId: string) {
  const rows = await db
    .selectFrom('brand_api_keys as k')
    .leftJoin('brand_users as u', (join) => join.onRef('u.id', '=', 'k.created_by_user_id').onRef('u.company_id', '=', 'k.company_id'))
    .select([
      'k.id',
      'k.name',
      'k.key_last_four',
      'k.environment',
      'k.revoked_at',
      'k.created_at',
      'k.last_used_at',
      'k.issued_by',
      'u.email',
      'u.display_name',
    ])
    .where('k.company_id', '=', companyId)
    .orderBy('k.created_at')
    .orderBy('k.id')
    .execute();
  return rows.map((row) => ({
    keyId: row.id,
    name: row.name,
    lastFour: row.key_last_four,
    environment: row.environment,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    issuedBy: row.issued_by,
    createdBy: row.email === null ? null : { email: row.email, displayName: row.display_name },
  }));
}

export async function insertBrandKey(
  db: Db,
  key: {
    companyId: string;
    name: string;
    keyHash: string;
    lastFour: string;
    environment: 'test' | 'live';
    issuedBy: KeyIssuer;
    createdByUserId: string | null;
  },
): Promise<string> {
  const row = await db
    .insertInto('brand_api_keys')
    .values({
      company_id: key.companyId,
      name: key.name,
      key_hash: key.keyHash,
      key_last_four: key.lastFour,
      environment: key.environment,
      issued_by: key.issuedBy,
      created_by_user_id: key.createdByUserId,
    })
    .onConflict((oc) => oc.column('key_hash').doUpdateSet({ name: key.name }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listPlatformCompanies(db: Db, platformId: string) {
  const rows = await db
    .selectFrom('platform_companies')
    .select(['company_id', 'first_seen_at', 'last_seen_at'])
    .where('platform_id', '=', platformId)
    .orderBy('first_seen_at')
    .orderBy('company_id')
    .execute();
  return rows.map((row) => ({
    companyId: row.company_id,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
  }));
}

export async function brandKeyBelongsTo(db: Db, keyId: string, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('brand_api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface KeyOwnerRow {
  key_hash: string;
  owner_id: string;
}

/** Which of these key hashes are already stored, and for whom: a fixture must not take over a key. */
export async function findKeyOwners(db: Db, table: 'platform_keys' | 'brand_api_keys', hashes: string[]): Promise<KeyOwnerRow[]> {
  if (hashes.length === 0) return [];
  const owner = table === 'platform_keys' ? sql.ref('platform_id') : sql.ref('company_id');
  const result = await sql<KeyOwnerRow>`
    select key_hash, ${owner}::text as owner_id from ${sql.table(table)} where key_hash = any(${hashes}::text[])`.execute(db);
  return result.rows;
}

/** A platform key as the bulk upsert takes it (the fixture loader). */
export interface PlatformKeyUpsertRow {
  platform_id: string;
  key_hash: string;
  key_last_four: string;
  environment: 'test' | 'live';
  expires_at: string | null;
}

/** A key revoked by support stays revoked: reloading a fixture never brings a key back. */
export function upsertPlatformKeys(db: Db, rows: PlatformKeyUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into platform_keys as k (platform_id, key_hash, key_last_four, environment, expires_at)
      select platform_id, key_hash, key_last_four, environment, expires_at
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(platform_id uuid, key_hash text, key_last_four text, environment text, expires_at timestamptz)
      on conflict (key_hash) do update set expires_at = excluded.expires_at
      where k.expires_at is distinct from excluded.expires_at
      returning 1`,
  );
}

/** A brand key as the bulk insert takes it (the fixture loader). */
export interface BrandKeyUpsertRow {
  company_id: string;
  name: string;
  key_hash: string;
  key_last_four: string;
  environment: 'test' | 'live';
}

export function insertBrandKeys(db: Db, rows: BrandKeyUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into brand_api_keys (company_id, name, key_hash, key_last_four, environment, issued_by)
      select company_id, name, key_hash, key_last_four, environment, 'fixture'
      from jsonb_to_recordset(${jsonRows(rows)})
        as r(company_id text, name text, key_hash text, key_last_four text, environment text)
      on conflict (key_hash) do nothing
      returning 1`,
  );
}

/** Which of these key hashes are stored and not revoked. */
export async function findUsableKeyHashes(db: Db, table: 'platform_keys' | 'brand_api_keys', hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const result = await sql<{ key_hash: string }>`
    select key_hash from ${sql.table(table)} where key_hash = any(${hashes}::text[]) and revoked_at is null`.execute(db);
  return new Set(result.rows.map((row) => row.key_hash));
}
