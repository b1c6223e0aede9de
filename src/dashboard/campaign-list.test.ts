import { expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/harness.js';
import { uniqueId } from '../../test/support/factories.js';
import { DashboardClient } from '../../test/support/dashboard-client.js';

const DAY_MS = 86_400_000;

/** The campaigns page's list (issue 27): sorted by status then date, and each draft says whether this brand can start it. */
describeEachDatabase('dashboard campaigns list', (use) => {
  const signedUpBrand = async (name: string) => {
    const client = new DashboardClient(use().app);
    const domain = `${uniqueId('store')}.example`;
    const companyId = await client.signUpBrand(name, domain, `${uniqueId('staff')}@${domain}`);
    return { client, companyId };
  };

  it('lists running, then drafts (dated soonest first, then undated newest first), then closed; says who can start a draft', async () => {
    const alpha = await signedUpBrand('Alpha');
    const beta = await signedUpBrand('Beta');
    await alpha.client.post(`/dashboard/api/partners/${beta.companyId}/request`, {});
    expect((await beta.client.post(`/dashboard/api/partners/${alpha.companyId}/accept`)).statusCode).toBe(200);

    const create = async (client: DashboardClient, partnerId: string, name: string, startInDays?: number) => {
      const startDate = startInDays === undefined ? undefined : new Date(Date.now() + startInDays * DAY_MS).toISOString();
      const created = await client.post('/dashboard/api/campaigns', { partnerId, name, startDate });
      expect(created.statusCode).toBe(201);
      return created.json().id as string;
    };
    const ended = await create(alpha.client, beta.companyId, 'Ended');
    const running = await create(alpha.client, beta.companyId, 'Running');
    await create(alpha.client, beta.companyId, 'Undated');
    await create(alpha.client, beta.companyId, 'Later', 20);
    await create(beta.client, alpha.companyId, "Beta's draft");
    await create(alpha.client, beta.companyId, 'Sooner', 10);
    expect((await alpha.client.post(`/dashboard/api/campaigns/${running}/start`)).statusCode).toBe(200);
    expect((await alpha.client.post(`/dashboard/api/campaigns/${ended}/close`)).statusCode).toBe(200);

    const list = async (client: DashboardClient) =>
      (await client.get('/dashboard/api/campaigns')).json().data as Array<{ name: string; status: string; startBlocked: string | null }>;
    const alphaView = await list(alpha.client);
    expect(alphaView.map((item) => [item.name, item.status, item.startBlocked])).toEqual([
      ['Running', 'active', null],
      ['Sooner', 'draft', null],
      ['Later', 'draft', null],
      ["Beta's draft", 'draft', 'partner_starts'],
      ['Undated', 'draft', null],
      ['Ended', 'closed', null],
    ]);
    const betaView = await list(beta.client);
    expect(betaView.find((item) => item.name === 'Sooner')?.startBlocked).toBe('partner_starts');
    expect(betaView.find((item) => item.name === "Beta's draft")?.startBlocked).toBeNull();

    // The partnership ending between two reads (its drafts are closed with it a moment later): a draft says it cannot start.
    await use()
      .db.updateTable('partnerships')
      .set({ status: 'removed' })
      .where('requester_id', '=', alpha.companyId)
      .where('recipient_id', '=', beta.companyId)
      .execute();
    const afterEnd = await list(alpha.client);
    expect(afterEnd.find((item) => item.name === 'Undated')?.startBlocked).toBe('partnership_ended');
    const undatedId = (await alpha.client.get('/dashboard/api/campaigns'))
      .json()
      .data.find((item: { name: string }) => item.name === 'Undated').id;
    const refused = await alpha.client.post(`/dashboard/api/campaigns/${undatedId}/start`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('conflict');
    expect((await list(alpha.client)).find((item) => item.name === 'Undated')?.status).toBe('draft');
  });
});
