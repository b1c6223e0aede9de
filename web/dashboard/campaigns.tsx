import { useEffect, useState } from 'preact/hooks';
import { get, post, type Campaign, type Offer, type Partner } from './api.ts';
import { formatMoment } from './dates.ts';
import { ConfirmAction, ErrorText, Field, formValue, StatusText, useAction } from './ui.tsx';

const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
const day = (iso: string | null) => (iso ? formatMoment(iso) : '—');

function OfferSummary({ label, offer }: { label: string; offer: Offer | null }) {
  return (
    <div class="offer">
      <span class="muted">{label}</span>
      {offer ? (
        <>
          <img src={offer.imageUrl} alt="" width={48} height={48} />
          <span>
            {offer.title}
            {offer.discountPercent ? ` · ${offer.discountPercent}% off` : ''}
            {offer.custom ? ' · for this collab' : ''}
          </span>
        </>
      ) : (
        <span>No offer yet</span>
      )}
    </div>
  );
}

/**
 * The offer one side shows in a collab: title, subtitle, image, and whether it carries the
 * brand's discount (a store has one discount code, so a collab cannot name another percent).
 */
function CollabOfferFields({ own, initial }: { own: Offer | null; initial?: Offer | null }) {
  const start = initial ?? own;
  return (
    <>
      <Field label="Offer title">
        <input name="offerTitle" required maxLength={80} value={start?.title ?? ''} />
      </Field>
      <Field label="Offer subtitle (optional)">
        <input name="offerSubtitle" maxLength={120} value={start?.subtitle ?? ''} />
      </Field>
      <Field label="Offer image URL">
        <input name="offerImageUrl" type="url" required maxLength={2000} value={start?.imageUrl ?? ''} />
      </Field>
      {own?.discountPercent ? (
        <label class="choice">
          <input type="checkbox" name="offerDiscount" checked={start ? start.discountPercent !== null : true} /> Include your{' '}
          {own.discountPercent}% new-customer discount
        </label>
      ) : (
        <p class="muted">Your offer has no discount; set one under Your offer.</p>
      )}
    </>
  );
}

function collabOfferFromForm(form: HTMLFormElement, own: Offer | null) {
  return {
    title: formValue(form, 'offerTitle'),
    subtitle: formValue(form, 'offerSubtitle') || null,
    imageUrl: formValue(form, 'offerImageUrl'),
    discountPercent: own?.discountPercent && new FormData(form).get('offerDiscount') ? own.discountPercent : null,
  };
}

/** Where a side changes its offer for one collab, or goes back to its own offer. */
function CollabOfferEditor({ campaign, own, onSaved }: { campaign: Campaign; own: Offer | null; onSaved: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [error, run, busy] = useAction();
  const name = campaign.name ?? 'collab';
  if (!open) {
    return (
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        Change your offer for {name}
      </button>
    );
  }
  return (
    <form
      aria-label={`Your offer in ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        void run(async () => {
          await post(`campaigns/${campaign.id}/offer`, collabOfferFromForm(form, own));
          setOpen(false);
          await onSaved();
        });
      }}
    >
      <CollabOfferFields own={own} initial={campaign.offers.mine} />
      <ErrorText error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Save offer for this collab
        </button>
        {campaign.offers.mine?.custom && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              run(async () => {
                await post(`campaigns/${campaign.id}/offer/reset`);
                setOpen(false);
                await onSaved();
              })
            }
          >
            Use my own offer
          </button>
        )}
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function Campaigns() {
  const [campaigns, setCampaigns] = useState<Campaign[] | null>(null);
  const [partners, setPartners] = useState<Partner[]>([]);
  const [own, setOwn] = useState<Offer | null>(null);
  const [customOffer, setCustomOffer] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, run, busy, setError] = useAction({ name: 'name', 'offer.title': 'offer title' });

  const refresh = async () => {
    setCampaigns((await get<{ data: Campaign[] }>('campaigns')).data);
    setPartners((await get<{ data: Partner[] }>('partners?status=active&pageSize=100')).data);
    setOwn((await get<{ offer: Offer | null }>('offer')).offer);
  };
  useEffect(() => {
    void run(refresh);
  }, []);

  const act = (id: string, action: string, body: unknown = {}, text: string | null = null) =>
    run(async () => {
      setDone(null);
      await post(`campaigns/${id}/${action}`, body);
      await refresh();
      setDone(text);
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
              const startDate = toIso(formValue(form, 'startDate'));
              const endDate = toIso(formValue(form, 'endDate'));
              // Said before anything is sent, in the words of the form.
              if (startDate && endDate && endDate <= startDate) {
                setError('End date must be after the start date.');
                return;
              }
              void run(async () => {
                setDone(null);
                const name = formValue(form, 'name');
                await post('campaigns', {
                  partnerId: formValue(form, 'partnerId'),
                  name,
                  startDate,
                  endDate,
                  offer: customOffer ? collabOfferFromForm(form, own) : undefined,
                });
                form.reset();
                setCustomOffer(false);
                await refresh();
                setDone(`Draft ${name} created: start it below when you are ready.`);
              });
            }}
          >
            <Field label="Partner">
              <select name="partnerId" required>
                {partners.map((partner) => (
                  <option value={partner.companyId}>{partner.businessName ?? partner.companyId}</option>
                ))}
              </select>
            </Field>
            <Field label="Name">
              <input name="name" required maxLength={100} />
            </Field>
            <Field label="Start date (optional)">
              <input name="startDate" type="datetime-local" />
            </Field>
            <Field label="End date (optional)">
              <input name="endDate" type="datetime-local" />
            </Field>
            <fieldset>
              <legend>The offer you show in this collab</legend>
              <label class="choice">
                <input type="radio" name="offerMode" checked={!customOffer} onChange={() => setCustomOffer(false)} /> My offer
                {own ? `: ${own.title}` : ' (not set up yet)'}
              </label>
              <label class="choice">
                <input type="radio" name="offerMode" checked={customOffer} onChange={() => setCustomOffer(true)} /> An offer for this collab
                only
              </label>
              {customOffer && <CollabOfferFields own={own} />}
            </fieldset>
            <p class="muted">Your partner chooses the offer it shows on its side.</p>
            <button type="submit" disabled={busy}>
              Create draft
            </button>
          </form>
        )}
        <ErrorText error={error} />
        <StatusText text={done} />
      </section>

      <section aria-labelledby="campaign-list">
        <h2 id="campaign-list">Collabs</h2>
        <ul class="cards" aria-label="Collabs" aria-busy={campaigns === null}>
          {campaigns === null && <li class="muted">Loading…</li>}
          {campaigns?.length === 0 && <li class="muted">No collabs yet.</li>}
          {(campaigns ?? []).map((campaign) => (
            <li data-campaign={campaign.id}>
              <strong>{campaign.name ?? 'Untitled'}</strong> with {campaign.partner.businessName ?? campaign.partner.companyId}{' '}
              <span class={`badge status-${campaign.status}`}>{campaign.scheduled ? 'scheduled' : campaign.status}</span>
              <p class="muted">
                Start {day(campaign.startDate)} · End {day(campaign.endDate)}
              </p>
              <OfferSummary label="Your offer" offer={campaign.offers.mine} />
              <OfferSummary label="Partner's offer" offer={campaign.offers.partner} />
              <div class="actions">
                {campaign.mine && campaign.status === 'draft' && (
                  <>
                    <button type="button" onClick={() => act(campaign.id, 'start', {}, `${campaign.name ?? 'The collab'} is active.`)}>
                      Start now
                    </button>
                    <form
                      class="inline"
                      aria-label={`Schedule ${campaign.name ?? 'collab'}`}
                      onSubmit={(event) => {
                        event.preventDefault();
                        void act(campaign.id, 'schedule', { startDate: toIso(formValue(event.currentTarget, 'startDate')) });
                      }}
                    >
                      <Field label="Start date">
                        <input name="startDate" type="datetime-local" required />
                      </Field>
                      <button type="submit" class="secondary">
                        Schedule
                      </button>
                    </form>
                  </>
                )}
                {campaign.status !== 'closed' && (
                  <ConfirmAction
                    label="Close"
                    name={`Close ${campaign.name ?? 'collab'}`}
                    question={`Close ${campaign.name ?? 'this collab'}? Its offers stop being shown; a closed collab cannot start again.`}
                    confirmLabel="Close collab"
                    onConfirm={() => act(campaign.id, 'close', {}, `${campaign.name ?? 'The collab'} is closed.`)}
                  />
                )}
              </div>
              <div class="actions">
                {campaign.status !== 'closed' && <CollabOfferEditor campaign={campaign} own={own} onSaved={refresh} />}
              </div>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
