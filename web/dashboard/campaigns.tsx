import { useEffect, useState } from 'preact/hooks';
import { get, post, type Campaign, type Offer, type Partner } from './api.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
const day = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function OfferSummary({ label, offer }: { label: string; offer: Offer | null }) {
  return (
    <div class="offer">
      <span class="muted">{label}</span>
      {offer ? (
        <>
          <img src={offer.imageUrl} alt="" width={48} height={48} />
          <span>{offer.title}{offer.discountPercent ? ` · ${offer.discountPercent}% off` : ''}</span>
        </>
      ) : (
        <span>No offer yet</span>
      )}
    </div>
  );
}

export function Campaigns() {
  const [campaigns, setCampaigns] = useState<Campaign[]>([]);
  const [partners, setPartners] = useState<Partner[]>([]);
  const [error, run, busy] = useAction();

  const refresh = async () => {
    setCampaigns((await get<{ data: Campaign[] }>('campaigns')).data);
    setPartners((await get<{ data: Partner[] }>('partners?status=active')).data);
  };
  useEffect(() => {
    void run(refresh);
  }, []);

  const act = (id: string, action: string, body: unknown = {}) => run(async () => {
    await post(`campaigns/${id}/${action}`, body);
    await refresh();
  });

  return (
    <>
      <section aria-labelledby="new-campaign">
        <h2 id="new-campaign">New collab</h2>
        {partners.length === 0 ? (
          <p class="muted">A collab is a campaign with a partner: connect with a brand first.</p>
        ) : (
          <form
            aria-label="New collab"
            onSubmit={(event) => {
              event.preventDefault();
              const form = event.currentTarget;
              void run(async () => {
                await post('campaigns', {
                  partnerId: formValue(form, 'partnerId'),
                  name: formValue(form, 'name'),
                  startDate: toIso(formValue(form, 'startDate')),
                  endDate: toIso(formValue(form, 'endDate')),
                });
                form.reset();
                await refresh();
              });
            }}
          >
            <Field label="Partner">
              <select name="partnerId" required>
                {partners.map((partner) => <option value={partner.companyId}>{partner.businessName ?? partner.companyId}</option>)}
              </select>
            </Field>
            <Field label="Name"><input name="name" required maxLength={100} /></Field>
            <Field label="Start (optional)"><input name="startDate" type="datetime-local" /></Field>
            <Field label="End (optional)"><input name="endDate" type="datetime-local" /></Field>
            <button type="submit" disabled={busy}>Create draft</button>
          </form>
        )}
        <ErrorText error={error} />
      </section>

      <section aria-labelledby="campaign-list">
        <h2 id="campaign-list">Collabs</h2>
        <ul class="cards" aria-label="Collabs">
          {campaigns.length === 0 && <li class="muted">No collabs yet.</li>}
          {campaigns.map((campaign) => (
            <li data-campaign={campaign.id}>
              <strong>{campaign.name ?? 'Untitled'}</strong> with {campaign.partner.businessName ?? campaign.partner.companyId}{' '}
              <span class={`badge status-${campaign.status}`}>{campaign.scheduled ? 'scheduled' : campaign.status}</span>
              <p class="muted">Start {day(campaign.startDate)} · End {day(campaign.endDate)}</p>
              <OfferSummary label="Your offer" offer={campaign.offers.mine} />
              <OfferSummary label="Partner's offer" offer={campaign.offers.partner} />
              <div class="actions">
                {campaign.mine && campaign.status === 'draft' && (
                  <>
                    <button type="button" onClick={() => act(campaign.id, 'start')}>Start now</button>
                    <form
                      class="inline"
                      aria-label={`Schedule ${campaign.name ?? 'collab'}`}
                      onSubmit={(event) => {
                        event.preventDefault();
                        void act(campaign.id, 'schedule', { startDate: toIso(formValue(event.currentTarget, 'startDate')) });
                      }}
                    >
                      <Field label="Start at"><input name="startDate" type="datetime-local" required /></Field>
                      <button type="submit" class="secondary">Schedule</button>
                    </form>
                  </>
                )}
                {campaign.status !== 'closed' && (
                  <button type="button" class="secondary" onClick={() => act(campaign.id, 'close')}>Close</button>
                )}
              </div>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
