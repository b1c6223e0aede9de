import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeBrandReadGuards } from '../../test/support/brand-read-guards.js';
import { describeEachDatabase } from '../../test/support/harness.js';
import { createBrand, createPlatform, uniqueId } from '../../test/support/factories.js';
import { insertCompanies, insertPartnerships, platformLinksOf } from '../../test/support/bulk-seeds.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describeEachDatabase('GET /v1/partners', (use) => {
  let me: { companyId: string; key: string };
  let other: { companyId: string; key: string };
  /** Partner id -> what `me` must see. */
  const partnerIds: Record<string, string> = {};

  beforeAll(async () => {
    me = await createBrand(use().support);
    other = await createBrand(use().support, { logoImageUrl: 'https://cdn.example/other.png' });
    for (const name of ['sent', 'received', 'activeMine', 'declined', 'removed', 'bare', 'oldActive']) partnerIds[name] = uniqueId(name);
    await insertCompanies(use().db, [
      { id: partnerIds.sent! },
      { id: partnerIds.received! },
      { id: partnerIds.activeMine!, logoImageUrl: 'https://cdn.example/a.png' },
      { id: partnerIds.declined! },
      { id: partnerIds.removed! },
      { id: partnerIds.bare!, businessName: null, domain: null },
      { id: partnerIds.oldActive! },
    ]);
    await insertPartnerships(use().db, [
      { requesterId: me.companyId, recipientId: partnerIds.sent!, status: 'pending', createdAt: at(1) },
      { requesterId: partnerIds.received!, recipientId: me.companyId, status: 'pending', createdAt: at(2) },
      { requesterId: me.companyId, recipientId: partnerIds.activeMine!, status: 'active', createdAt: at(3) },
      { requesterId: partnerIds.declined!, recipientId: me.companyId, status: 'declined', createdAt: at(4) },
      { requesterId: me.companyId, recipientId: partnerIds.removed!, status: 'removed', createdAt: at(5) },
      { requesterId: partnerIds.bare!, recipientId: me.companyId, status: 'active', createdAt: at(6) },
      { requesterId: other.companyId, recipientId: me.companyId, status: 'active', createdAt: at(0) },
      // Another brand's partnerships never show up in mine.
      { requesterId: other.companyId, recipientId: partnerIds.oldActive!, status: 'active', createdAt: at(7) },
    ]);
  });

  const list = (query = '', headers: Record<string, string> = {}, key: string | null = me.key) =>
    use().app.inject({
      method: 'GET',
      url: `/v1/partners${query}`,
      headers: { ...(key === null ? {} : { 'x-api-key': key }), ...headers },
    });

  it('lists active partners by default, newest first, from either side, with optional fields omitted when unknown', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      totalRows: 3,
      data: [
        { companyId: partnerIds.bare, status: 'active' },
        {
          companyId: partnerIds.activeMine,
          businessName: `Brand ${partnerIds.activeMine}`,
          domain: `${partnerIds.activeMine}.example`,
          logoImageUrl: 'https://cdn.example/a.png',
          status: 'active',
        },
        {
          companyId: other.companyId,
          businessName: `Brand ${other.companyId}`,
          domain: `${other.companyId}.example`,
          logoImageUrl: 'https://cdn.example/other.png',
          status: 'active',
        },
      ],
    });
  });

  it('shows an open request as inviteSent to the brand that asked and inviteReceived to the other', async () => {
    const sent = (await list('?status=inviteSent')).json();
    expect(sent).toEqual({ totalRows: 1, data: [expect.objectContaining({ companyId: partnerIds.sent, status: 'inviteSent' })] });
    const received = (await list('?status=inviteReceived')).json();
    expect(received).toEqual({
      totalRows: 1,
      data: [expect.objectContaining({ companyId: partnerIds.received, status: 'inviteReceived' })],
    });
  });

  it('returns removed partnerships with the declined filter, carrying removed; the removed filter returns only those', async () => {
    const declined = (await list('?status=declined')).json();
    expect(declined.totalRows).toBe(2);
    expect(declined.data.map((p: { companyId: string; status: string }) => [p.companyId, p.status])).toEqual([
      [partnerIds.removed, 'removed'],
      [partnerIds.declined, 'declined'],
    ]);
    const removed = (await list('?status=removed')).json();
    expect(removed).toEqual({ totalRows: 1, data: [expect.objectContaining({ companyId: partnerIds.removed, status: 'removed' })] });
  });

  it('pages from 1 with pageSize, counting every page, the same from either end', async () => {
    const paged = await createBrand(use().support);
    const ids = Array.from({ length: 57 }, (_, i) => `paged-${paged.companyId}-${String(i).padStart(2, '0')}`);
    await insertCompanies(
      use().db,
      ids.map((id) => ({ id })),
    );
    await insertPartnerships(
      use().db,
      ids.map((id, i) => ({
        requesterId: i % 2 ? paged.companyId : id,
        recipientId: i % 2 ? id : paged.companyId,
        status: 'active',
        createdAt: at(i),
      })),
    );
    const newestFirst = [...ids].reverse();
    const pageOf = async (query: string) => {
      const response = await list(query, {}, paged.key);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.totalRows).toBe(57);
      return body.data.map((p: { companyId: string }) => p.companyId);
    };
    expect(await pageOf('')).toEqual(newestFirst.slice(0, 50));
    expect(await pageOf('?pageIndex=2')).toEqual(newestFirst.slice(50));
    const pages: string[] = [];
    for (let pageIndex = 1; pageIndex <= 6; pageIndex++) pages.push(...(await pageOf(`?pageSize=10&pageIndex=${pageIndex}`)));
    expect(pages).toEqual(newestFirst);
    expect(await pageOf('?pageSize=100')).toEqual(newestFirst);
    expect(await pageOf('?pageSize=10&pageIndex=7')).toEqual([]);
    expect(await pageOf('?pageSize=1&pageIndex=57')).toEqual([newestFirst[56]]);
  });

  it('records the platform link when a valid X-Platform-Id is sent', async () => {
    const { platformId } = await createPlatform(use().support);
    const response = await list('', { 'x-platform-id': platformId.toUpperCase() });
    expect(response.statusCode).toBe(200);
    expect(await platformLinksOf(use().db, me.companyId)).toContainEqual({ platform_id: platformId });
  });

  describeBrandReadGuards(use, () => me, list, [
    ['unknown status', '?status=pending', /query parameter status must be one of active, inviteSent, inviteReceived, declined, removed/],
    ['pageIndex 0', '?pageIndex=0', /query parameter pageIndex must be >= 1/],
    ['negative pageIndex', '?pageIndex=-1', /query parameter pageIndex must be >= 1/],
    ['fractional pageIndex', '?pageIndex=1.5', /query parameter pageIndex must be integer/],
    ['non-numeric pageIndex', '?pageIndex=abc', /query parameter pageIndex must be integer/],
    ['huge pageIndex', '?pageIndex=1000000000000', /query parameter pageIndex must be <= 1000000/],
    ['empty pageIndex', '?pageIndex=', /query parameter pageIndex must be integer/],
    ['pageSize 0', '?pageSize=0', /query parameter pageSize must be >= 1/],
    ['pageSize 101', '?pageSize=101', /query parameter pageSize must be <= 100/],
    ['repeated pageSize', '?pageSize=10&pageSize=20', /query parameter pageSize must be integer/],
  ]);

  it('answers 500 internal_error in the spec shape when the list cannot be loaded', async () => {
    const { db } = use();
    await sql`alter table partnerships rename to partnerships_unavailable`.execute(db);
    try {
      const response = await list();
      expect(response.statusCode).toBe(500);
      const body = response.json();
      expect(body).toEqual({ error: 'internal_error', message: expect.any(String), requestId: response.headers['x-request-id'] });
      expect(body.message).not.toMatch(/partnerships|select|relation/i);
    } finally {
      await sql`alter table partnerships_unavailable rename to partnerships`.execute(db);
    }
  });
});
