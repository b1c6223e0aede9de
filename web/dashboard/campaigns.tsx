import { useEffect, useState } from 'preact/hooks';
import { get, post, type Campaign, type Offer, type Partner } from './api.ts';
import { formatMoment } from './dates.ts';
import { ConfirmAction, ErrorText, Field, formValue, StatusText, useAction } from './ui.tsx';

/** Asked before Start now replaces a start date still to come: the person may have picked that date on purpose. */
const REPLACE_START = 'Start it now instead? Its start date becomes now.';
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
            {offer.custom ? ' · for this campaign' : ''}
          </span>
        </>
      ) : (
        <span>No offer yet</span>
      )}
    </div>
  );
}

/**
 * The offer one side shows in a campaign: title, subtitle, image, and whether it carries the
 * brand's discount (a store has one discount code, so a campaign cannot name another percent).
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

/** Where a side changes its offer for one campaign, or goes back to its own offer. */
function CollabOfferEditor({ campaign, own, onSaved }: { campaign: Campaign; own: Offer | null; onSaved: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [error, run, busy] = useAction();
  const name = campaign.name ?? 'campaign';
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
          Save offer for this campaign
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

/**
 * Whether a draft can start, and if not why, said on the draft: the same checks the service makes
 * when Start now is pressed, plus what a started campaign would show without an offer.
 */
function DraftReadiness({ campaign }: { campaign: Campaign }) {
  const partner = campaign.partner.businessName ?? 'Your partner';
  const lines: string[] = [];
  if (campaign.startBlocked === 'partner_starts') lines.push(`${partner} created this draft, so only ${partner} can start it.`);
  else if (campaign.startBlocked === 'partnership_ended') lines.push(`It cannot start: you and ${partner} are no longer partners.`);
  else if (campaign.scheduled && campaign.startDate) {
    lines.push(`Ready: it starts on its own on ${formatMoment(campaign.startDate)}; Start now starts it at once.`);
  } else lines.push('Ready to start: Start now starts it at once, or Schedule picks a start date.');
  if (campaign.startBlocked !== 'partnership_ended') {
    if (!campaign.offers.mine) lines.push('Your side has no offer yet: set one under Your offer, or change your offer for this campaign.');
    if (!campaign.offers.partner) lines.push(`${partner} has no offer yet, so nothing of theirs is shown until they set one.`);
  }
  return (
    <p class="readiness" data-readiness={campaign.startBlocked ?? 'ready'}>
      {lines.join(' ')}
    </p>
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
        <h2 id="new-campaign">New campaign</h2>
        {partners.length === 0 ? (
          <p class="muted">A campaign runs with a partner: connect with a brand under Partnerships first.</p>
        ) : (
          <form
            aria-label="New campaign"
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
              <legend>Your offer in this campaign</legend>
              <label class="choice">
                <input type="radio" name="offerMode" checked={!customOffer} onChange={() => setCustomOffer(false)} /> My offer
                {own ? `: ${own.title}` : ' (not set up yet)'}
              </label>
              <label class="choice">
                <input type="radio" name="offerMode" checked={customOffer} onChange={() => setCustomOffer(true)} /> An offer for this
                campaign only
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
        <h2 id="campaign-list">Your campaigns</h2>
        <p class="muted">
          A campaign runs with one partner: while it is active, each of you shows the other's offer to your shoppers. Running campaigns come
          first, then drafts, then closed ones.
        </p>
        <ul class="cards" aria-label="Campaigns" aria-busy={campaigns === null}>
          {campaigns === null && <li class="muted">Loading…</li>}
          {campaigns?.length === 0 && <li class="muted">No campaigns yet.</li>}
          {(campaigns ?? []).map((campaign) => {
            const name = campaign.name ?? 'Untitled campaign';
            const futureStart = campaign.startDate !== null && Date.parse(campaign.startDate) > Date.now() ? campaign.startDate : null;
            const start = () => act(campaign.id, 'start', {}, `${name} is active.`);
            return (
              <li data-campaign={campaign.id}>
                <strong>{name}</strong> with {campaign.partner.businessName ?? campaign.partner.companyId}{' '}
                <span class={`badge status-${campaign.status}`}>{campaign.scheduled ? 'scheduled' : campaign.status}</span>
                <p class="muted">
                  Start {day(campaign.startDate)} · End {day(campaign.endDate)}
                </p>
                {campaign.status === 'draft' && <DraftReadiness campaign={campaign} />}
                <OfferSummary label="Your offer" offer={campaign.offers.mine} />
                <OfferSummary label="Partner's offer" offer={campaign.offers.partner} />
                <div class="actions">
                  {campaign.status === 'draft' && campaign.startBlocked === null && (
                    <>
                      {futureStart ? (
                        <ConfirmAction
                          primary
                          label="Start now"
                          question={`${name} is set to start on ${formatMoment(futureStart)}. ${REPLACE_START}`}
                          confirmLabel="Start now instead"
                          cancelLabel="Keep the start date"
                          onConfirm={start}
                        />
                      ) : (
                        <button type="button" onClick={start}>
                          Start now
                        </button>
                      )}
                      <form
                        class="inline"
                        aria-label={`Schedule ${name}`}
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
                      name={`Close ${name}`}
                      question={`Close ${name}? Its offers stop being shown; a closed campaign cannot start again.`}
                      confirmLabel="Close campaign"
                      onConfirm={() => act(campaign.id, 'close', {}, `${name} is closed.`)}
                    />
                  )}
                </div>
                <div class="actions">
                  {campaign.status !== 'closed' && <CollabOfferEditor campaign={campaign} own={own} onSaved={refresh} />}
                </div>
              </li>
            );
          })}
        </ul>
      </section>
    </>
  );
}
