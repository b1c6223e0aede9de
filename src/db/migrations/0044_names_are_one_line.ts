import { sql, type Kysely } from 'kysely';

/**
 * Names are one line (issue 44): a name with a line break ("Evil Co\n=1+1") put a line of its own,
 * a formula, into its partners' CSV exports. Requests now refuse control characters and line
 * separators in names (src/http/schemas.ts ONE_LINE_PATTERN); the names stored before are cleaned
 * here as src/shared/one-line.ts cleans a store's name: each run of them becomes a space, spaces
 * are collapsed and the ends trimmed (a name of nothing else becomes one space, so a column that
 * requires text keeps some).
 */
const NAME_COLUMNS: Array<[table: string, columns: string[]]> = [
  ['companies', ['business_name', 'business_size', 'country']],
  ['platform_brands', ['business_name']],
  ['platforms', ['name']],
  ['brand_api_keys', ['name']],
  ['brand_users', ['display_name']],
  ['campaigns', ['name']],
  ['offers', ['title', 'subtitle']],
  ['campaign_offers', ['title', 'subtitle']],
  ['oauth_clients', ['name']],
  ['sign_up_requests', ['business_name']],
  ['brand_claims', ['business_name']],
  ['sandbox_stores', ['business_name']],
  ['sandbox_products', ['title']],
  ['shopify_confirmation_requests', ['shop_name', 'platform_name']],
  // Kept current by a trigger on companies, but only when a company's name is written.
  ['performance_partners', ['other_name']],
];

/** C0 controls (tab, LF, CR among them), DEL, C1 controls, U+2028 and U+2029, in PostgreSQL's regular expressions. */
const LINE_BREAKING = String.raw`[\u0001-\u001f\u007f-\u009f\u2028\u2029]`;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of NAME_COLUMNS) {
    for (const column of columns) {
      const name = sql.ref(column);
      const spaced = sql`regexp_replace(regexp_replace(${name}, ${`${LINE_BREAKING}+`}, ' ', 'g'), ' {2,}', ' ', 'g')`;
      const cleaned = sql`coalesce(nullif(btrim(${spaced}, ' '), ''), ' ')`;
      await sql`update ${sql.table(table)} set ${name} = ${cleaned} where ${name} ~ ${LINE_BREAKING}`.execute(db);
    }
  }
}

/** The cleaning is not undone: the control characters taken out were never wanted. */
export async function down(): Promise<void> {}
