import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Helpers of the idempotent bulk upserts each domain's dal offers the fixture loader: one
 * statement per table takes every row as one JSON parameter (jsonb_to_recordset turns it into a
 * relation, arrays included), and updates a row only when a value differs, so loading the same
 * rows again changes nothing, not even updated_at.
 */
export const jsonRows = (rows: unknown[]) => sql`${JSON.stringify(rows)}::jsonb`;

/** Runs a bulk upsert that returns one row per row it inserted or changed; returns how many. */
export async function countWritten(db: Db, query: ReturnType<typeof sql>): Promise<number> {
  const result = await query.execute(db);
  return result.rows.length;
}
