import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Db } from '../db/database.js';
import { countWritten, jsonRows } from '../db/bulk.js';

export interface ClientRecord {
  clientId: string;
  name: string;
  secretHash: string | null;
  redirectUris: string[];
  companyId: string | null;
}

/** Inserts a client; returns false when the client id is taken. */
export async function insertClient(db: Db, client: ClientRecord): Promise<boolean> {
  const row = await db
    .insertInto('oauth_clients')
    .values({
      client_id: client.clientId,
      name: client.name,
      secret_hash: client.secretHash,
      redirect_uris: client.redirectUris,
      company_id: client.companyId,
    })
    .onConflict((oc) => oc.column('client_id').doNothing())
    .returning('client_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inserts a client a brand registers on its dashboard unless the brand has `limit` apps already.
 * The brand's row is locked first, so concurrent registrations count one after the other:
 * 'inserted', 'limit', or 'taken' (the client id exists).
 */
export async function insertBrandClient(
  db: Db,
  client: ClientRecord & { ownerCompanyId: string },
  limit: number,
): Promise<'inserted' | 'limit' | 'taken'> {
  return db.transaction().execute(async (trx) => {
    await sql`select id from companies where id = ${client.ownerCompanyId} for update`.execute(trx);
    const counted = await trx
      .selectFrom('oauth_clients')
      .select(({ fn }) => fn.countAll<string>().as('apps'))
      .where('owner_company_id', '=', client.ownerCompanyId)
      .executeTakeFirstOrThrow();
    if (Number(counted.apps) >= limit) return 'limit';
    const row = await trx
      .insertInto('oauth_clients')
      .values({
        client_id: client.clientId,
        name: client.name,
        secret_hash: client.secretHash,
        redirect_uris: client.redirectUris,
        company_id: client.companyId,
        owner_company_id: client.ownerCompanyId,
      })
      .onConflict((oc) => oc.column('client_id').doNothing())
      .returning('client_id')
      .executeTakeFirst();
    return row === undefined ? 'taken' : 'inserted';
  });
}

/** The apps a brand registered, oldest first, never their secrets. */
export async function listBrandClients(db: Db, ownerCompanyId: string) {
  return db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'secret_hash', 'redirect_uris', 'created_at'])
    .where('owner_company_id', '=', ownerCompanyId)
    .orderBy('created_at')
    .orderBy('client_id')
    .execute();
}

/** Deletes a client the brand registered, and with it (cascading) every grant, code and token of it; false when it is not the brand's. */
export async function deleteBrandClient(db: Db, ownerCompanyId: string, clientId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('oauth_clients')
    .where('client_id', '=', clientId)
    .where('owner_company_id', '=', ownerCompanyId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findClient(db: Db, clientId: string): Promise<ClientRecord | undefined> {
  const row = await db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'secret_hash', 'redirect_uris', 'company_id'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return (
    row && {
      clientId: row.client_id,
      name: row.name,
      secretHash: row.secret_hash,
      redirectUris: row.redirect_uris,
      companyId: row.company_id,
    }
  );
}

/** The business name of the brand that registered the client on its dashboard; null for support's clients. */
export async function registeringBrand(db: Db, clientId: string): Promise<string | null> {
  const row = await db
    .selectFrom('oauth_clients as o')
    .innerJoin('companies as c', 'c.id', 'o.owner_company_id')
    .select('c.business_name')
    .where('o.client_id', '=', clientId)
    .executeTakeFirst();
  return row?.business_name ?? null;
}

export async function listClients(db: Db) {
  const rows = await db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'secret_hash', 'redirect_uris', 'company_id', 'created_at'])
    .orderBy('created_at')
    .orderBy('client_id')
    .execute();
  return rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    confidential: row.secret_hash !== null,
    redirectUris: row.redirect_uris,
    companyId: row.company_id,
    createdAt: row.created_at.toISOString(),
  }));
}

export async function platformName(db: Db, platformId: string): Promise<string | undefined> {
  const row = await db.selectFrom('platforms').select('name').where('id', '=', platformId).executeTakeFirst();
  return row?.name;
}

export interface GrantInput {
  clientId: string;
  companyId: string;
  userId: string | null;
  platformId: string | null;
  scope: string[];
}

async function insertGrant(trx: Transaction<Database> | Db, grant: GrantInput): Promise<string> {
  const row = await trx
    .insertInto('oauth_grants')
    .values({
      client_id: grant.clientId,
      company_id: grant.companyId,
      user_id: grant.userId,
      platform_id: grant.platformId,
      scope: grant.scope,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Records a consent: the grant and its authorization code, together or not at all. */
export async function insertGrantWithCode(
  db: Db,
  grant: GrantInput,
  code: { codeHash: string; redirectUri: string; codeChallenge: string; expiresAt: Date },
): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const grantId = await insertGrant(trx, grant);
    await trx
      .insertInto('oauth_authorization_codes')
      .values({
        code_hash: code.codeHash,
        grant_id: grantId,
        redirect_uri: code.redirectUri,
        code_challenge: code.codeChallenge,
        code_challenge_method: 'S256',
        expires_at: code.expiresAt,
      })
      .execute();
    return grantId;
  });
}

export interface GrantRecord {
  grantId: string;
  clientId: string;
  companyId: string;
  userId: string | null;
  platformId: string | null;
  scope: string[];
}

const grantColumns = ['g.id as grant_id', 'g.client_id', 'g.company_id', 'g.user_id', 'g.platform_id', 'g.scope'] as const;

function toGrant(row: {
  grant_id: string;
  client_id: string;
  company_id: string;
  user_id: string | null;
  platform_id: string | null;
  scope: string[];
}): GrantRecord {
  return {
    grantId: row.grant_id,
    clientId: row.client_id,
    companyId: row.company_id,
    userId: row.user_id,
    platformId: row.platform_id,
    scope: row.scope,
  };
}

export async function findCode(db: Db, codeHash: string) {
  const row = await db
    .selectFrom('oauth_authorization_codes as c')
    .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .select([...grantColumns, 'c.redirect_uri', 'c.code_challenge', 'c.code_challenge_method', 'c.expires_at', 'c.used_at', 'g.revoked_at'])
    .where('c.code_hash', '=', codeHash)
    .executeTakeFirst();
  return (
    row && {
      grant: toGrant(row),
      redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge,
      codeChallengeMethod: row.code_challenge_method,
      expiresAt: row.expires_at,
      used: row.used_at !== null,
      grantRevoked: row.revoked_at !== null,
    }
  );
}

/** Marks a code used; false when it already was (single use holds under concurrency). */
export async function markCodeUsed(db: Db, codeHash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('oauth_authorization_codes')
    .set({ used_at: at })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes a grant and with it every access and refresh token of its family. */
export async function revokeGrant(db: Db, grantId: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: sql`now()`, revoked_reason: reason })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await db.updateTable('oauth_refresh_tokens').set({ successor_sealed: null }).where('grant_id', '=', grantId).execute();
  return Number(result.numUpdatedRows) > 0;
}

export interface TokenRows {
  accessHash: string;
  accessExpiresAt: Date;
  refresh?: { hash: string; expiresAt: Date };
}

async function insertTokens(trx: Transaction<Database> | Db, grantId: string, tokens: TokenRows): Promise<void> {
  await trx
    .insertInto('oauth_access_tokens')
    .values({ token_hash: tokens.accessHash, grant_id: grantId, expires_at: tokens.accessExpiresAt })
    .execute();
  if (tokens.refresh) {
    await trx
      .insertInto('oauth_refresh_tokens')
      .values({ token_hash: tokens.refresh.hash, grant_id: grantId, expires_at: tokens.refresh.expiresAt })
      .execute();
  }
}

export async function saveTokens(db: Db, grantId: string, tokens: TokenRows): Promise<void> {
  await insertTokens(db, grantId, tokens);
}

/** Client credentials: a grant of its own for each issuance, so each token can be revoked alone. */
export async function saveTokensWithNewGrant(db: Db, grant: GrantInput, tokens: TokenRows): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const grantId = await insertGrant(trx, grant);
    await insertTokens(trx, grantId, tokens);
    return grantId;
  });
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  const row = await db
    .selectFrom('oauth_refresh_tokens as r')
    .innerJoin('oauth_grants as g', 'g.id', 'r.grant_id')
    .select([...grantColumns, 'r.token_hash', 'r.expires_at', 'r.rotated_at', 'r.successor_sealed', 'g.revoked_at'])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return (
    row && {
      grant: toGrant(row),
      tokenHash: row.token_hash,
      expiresAt: row.expires_at,
      rotatedAt: row.rotated_at,
      successorSealed: row.successor_sealed,
      grantRevoked: row.revoked_at !== null,
    }
  );
}

/**
 * Rotates a refresh token in one transaction: marks it rotated (only if it was not already),
 * keeps its sealed successor for the grace window, stores the new pair, and drops older sealed
 * successors of the family. Returns false, writing nothing, when another request rotated it first.
 */
export async function rotateRefreshToken(
  db: Db,
  rotation: { tokenHash: string; grantId: string; sealedSuccessor: string; at: Date; successor: TokenRows },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('oauth_refresh_tokens')
      .set({ rotated_at: rotation.at, successor_sealed: rotation.sealedSuccessor })
      .where('token_hash', '=', rotation.tokenHash)
      .where('rotated_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await insertTokens(trx, rotation.grantId, rotation.successor);
    await trx
      .updateTable('oauth_refresh_tokens')
      .set({ successor_sealed: null })
      .where('grant_id', '=', rotation.grantId)
      .where('token_hash', '<>', rotation.tokenHash)
      .where('successor_sealed', 'is not', null)
      .execute();
    return true;
  });
}

/** A usable access token: unexpired, not revoked, its grant not revoked. */
export async function findActiveAccessToken(db: Db, tokenHash: string, now: Date) {
  const row = await db
    .selectFrom('oauth_access_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([...grantColumns, 't.id as token_id', 't.token_hash', 't.expires_at'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where('g.revoked_at', 'is', null)
    .where('t.expires_at', '>', now)
    .executeTakeFirst();
  return row && { grant: toGrant(row), tokenId: row.token_id, tokenHash: row.token_hash, expiresAt: row.expires_at };
}

/** The client an access token was issued to, revoked or not; undefined for an unknown token. */
export async function accessTokenClientId(db: Db, tokenHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('oauth_access_tokens as a')
    .innerJoin('oauth_grants as g', 'g.id', 'a.grant_id')
    .select('g.client_id')
    .where('a.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row?.client_id;
}

/** RFC 7009 for an access token: revokes it when it belongs to the client; true when something changed. */
export async function revokeAccessToken(db: Db, tokenHash: string, clientId: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: sql`now()` })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('grant_id', 'in', (eb) => eb.selectFrom('oauth_grants').select('id').where('client_id', '=', clientId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The apps a brand authorized and has not revoked, newest first (the dashboard's Integrations). */
export async function listAuthorizedApps(db: Db, companyId: string) {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .leftJoin('platforms as p', 'p.id', 'g.platform_id')
    .select(['g.id', 'c.name as client_name', 'g.client_id', 'g.scope', 'g.created_at', 'p.name as platform_name'])
    .where('g.company_id', '=', companyId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id')
    .execute();
}

export async function grantBelongsTo(db: Db, grantId: string, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('id', '=', grantId)
    .where('company_id', '=', companyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** An OAuth client as the bulk upsert takes it (the fixture loader). */
export interface OAuthClientUpsertRow {
  client_id: string;
  name: string;
  secret_hash: string | null;
  redirect_uris: string[];
}

export function upsertOAuthClients(db: Db, rows: OAuthClientUpsertRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  return countWritten(
    db,
    sql`
      insert into oauth_clients as o (client_id, name, secret_hash, redirect_uris)
      select client_id, name, secret_hash, redirect_uris
      from jsonb_to_recordset(${jsonRows(rows)}) as r(client_id text, name text, secret_hash text, redirect_uris text[])
      on conflict (client_id) do update set
        name = excluded.name, secret_hash = excluded.secret_hash, redirect_uris = excluded.redirect_uris
      where (o.name, o.secret_hash, o.redirect_uris) is distinct from (excluded.name, excluded.secret_hash, excluded.redirect_uris)
      returning 1`,
  );
}
