import { sql } from 'kysely';
import type { Db } from '../db/database.js';

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
  const row = await db
    .selectFrom('platforms')
    .select(['id', 'active', 'offer_types'])
    .where('id', '=', platformId)
    .executeTakeFirst();
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
