import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeOnBothEngines } from '../../test/support/harness.js';
import { createBrand, createPlatform } from '../../test/support/factories.js';
import { UsageRecorder } from './usage-recorder.js';

describeOnBothEngines('UsageRecorder', (use) => {
  const recorder = () => new UsageRecorder(use().db, use().app.log);
  const keyLastUsed = async (keyId: string) =>
    (await use().db.selectFrom('brand_api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow()).last_used_at;
  const linkLastSeen = async (platformId: string, companyId: string) =>
    (
      await use()
        .db.selectFrom('platform_companies')
        .select('last_seen_at')
        .where('platform_id', '=', platformId)
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).last_seen_at;

  it('keeps the updates of a failed flush and writes them with the next one', async () => {
    const brand = await createBrand(use().support);
    const { platformId } = await createPlatform(use().support);
    const usage = recorder();
    await usage.platformSeen(platformId, brand.companyId);
    const firstSeen = await linkLastSeen(platformId, brand.companyId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await usage.platformSeen(platformId, brand.companyId);
    usage.keyUsed('brand_api_keys', brand.keyId);

    // A real refusal by the database, as an outage or a lock timeout would give.
    await sql`create function refuse_key_touch() returns trigger language plpgsql as $$
              begin raise exception 'key usage refused for this test'; end $$`.execute(use().db);
    await sql`create trigger refuse_key_touch before update on brand_api_keys for each row execute function refuse_key_touch()`.execute(
      use().db,
    );
    try {
      await expect(usage.flush()).rejects.toThrow(/key usage refused for this test/);
    } finally {
      await sql`drop trigger refuse_key_touch on brand_api_keys`.execute(use().db);
      await sql`drop function refuse_key_touch()`.execute(use().db);
    }
    // One transaction: the link's sighting was not written either.
    expect(await keyLastUsed(brand.keyId)).toBeNull();
    expect(await linkLastSeen(platformId, brand.companyId)).toEqual(firstSeen);

    await usage.flush();
    expect(await keyLastUsed(brand.keyId)).toBeInstanceOf(Date);
    expect((await linkLastSeen(platformId, brand.companyId)).getTime()).toBeGreaterThan(firstSeen.getTime());
  });

  it('leaves nothing pending after a successful flush', async () => {
    const brand = await createBrand(use().support);
    const usage = recorder();
    usage.keyUsed('brand_api_keys', brand.keyId);
    await usage.flush();
    const written = await keyLastUsed(brand.keyId);
    await use().db.updateTable('brand_api_keys').set({ last_used_at: null }).where('id', '=', brand.keyId).execute();
    await usage.flush();
    expect(written).toBeInstanceOf(Date);
    expect(await keyLastUsed(brand.keyId)).toBeNull();
  });
});
