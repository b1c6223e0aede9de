import { useEffect, useState } from 'preact/hooks';
import { get, post, type OwnOffer, type Offer, type ReferralLink, type SetupProposal } from './api.ts';
import { ErrorText, Field, formValue, StatusText, useAction } from './ui.tsx';

interface Draft {
  title: string;
  subtitle: string;
  imageUrl: string;
  discountPercent: string;
}

const draftOf = (offer: Offer | null): Draft => ({
  title: offer?.title ?? '',
  subtitle: offer?.subtitle ?? '',
  imageUrl: offer?.imageUrl ?? '',
  discountPercent: offer?.discountPercent ? String(offer.discountPercent) : '',
});

/**
 * The offer card as a partner's page shows it to shoppers (image, title, subtitle, one link), and
 * what the link does: open the brand's store with its new-customer discount. It follows the form
 * as the person types, before anything is saved.
 */
function OfferPreview({ draft, storeDomain }: { draft: Draft; storeDomain: string | null }) {
  const [imageFailed, setImageFailed] = useState(false);
  useEffect(() => setImageFailed(false), [draft.imageUrl]);
  return (
    <figure class="offer-preview" aria-labelledby="preview-caption">
      <figcaption id="preview-caption">What shoppers see on partners' pages</figcaption>
      <div class="offer-card" data-testid="offer-preview">
        {draft.imageUrl && !imageFailed ? (
          <img src={draft.imageUrl} alt="" onError={() => setImageFailed(true)} />
        ) : (
          <div class="offer-card-placeholder">{draft.imageUrl ? 'The image could not be loaded' : 'No image yet'}</div>
        )}
        <div class="offer-card-text">
          <strong>{draft.title || 'Your title'}</strong>
          {draft.subtitle && <span>{draft.subtitle}</span>}
          <span class="offer-card-link">Shop now</span>
          {storeDomain && <span class="muted">{storeDomain}</span>}
        </div>
      </div>
      <p class="muted">
        {draft.discountPercent
          ? `The link opens your store with your ${draft.discountPercent}% discount for new customers already applied.`
          : 'The link opens your store; your offer has no discount.'}
      </p>
    </figure>
  );
}

/** The referral links partners' pages use for the brand's offer: one per platform, campaign and partner showing it. */
function ReferralLinks() {
  const [links, setLinks] = useState<ReferralLink[] | null>(null);
  const [error, run] = useAction();
  useEffect(() => {
    void run(async () => setLinks((await get<{ data: ReferralLink[] }>('offer/links')).data));
  }, []);
  return (
    <section aria-labelledby="links-title">
      <h2 id="links-title">Links partners' pages use</h2>
      <p class="muted">
        Each partner page that shows your offer links to it through its own referral link, so the platform that shows it is credited. A
        click on one counts as a click for that platform: to try your store, open where it leads instead.
      </p>
      <ErrorText error={error} />
      {links?.length === 0 && (
        <p>No partner page has shown your offer yet. A link appears here the first time a platform shows it in one of your campaigns.</p>
      )}
      {links && links.length > 0 && (
        <ul class="cards" aria-label="Referral links">
          {links.map((link) => (
            <li key={link.url}>
              <p>
                <strong>{link.shownBy ?? 'A partner'}</strong> on {link.platform ?? 'a platform'}
                {link.campaign && <span class="muted"> · campaign {link.campaign}</span>}
              </p>
              <p>
                Referral link: <code>{link.url}</code>
              </p>
              {link.leadsTo && (
                <p>
                  Leads to:{' '}
                  <a href={link.leadsTo} target="_blank" rel="noopener">
                    {link.leadsTo}
                  </a>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What store setup built from the store's best sellers while the offer says something else: the staff choose whether to use it. */
function ProposalNote({ proposal, use }: { proposal: SetupProposal; use: () => void }) {
  return (
    <section class="notice" aria-labelledby="proposal-title">
      <h2 id="proposal-title">Store setup's suggestion</h2>
      <p>
        Setting up your store built this from your best sellers. Your offer stays as you wrote it; use the suggestion only if you want it.
      </p>
      <p>
        Subtitle: <strong>{proposal.subtitle}</strong>
      </p>
      <p>
        Image: <code>{proposal.imageUrl}</code>
      </p>
      <button type="button" class="secondary" onClick={use}>
        Put the suggestion in the form
      </button>
    </section>
  );
}

/** The brand's own offer: what partners show their shoppers in every campaign, its preview, and the links that lead to it. */
export function OfferPage({ storeDomain }: { storeDomain: string | null }) {
  const [offer, setOffer] = useState<Offer | null | undefined>(undefined);
  const [proposal, setProposal] = useState<SetupProposal | null>(null);
  const [draft, setDraft] = useState<Draft>(draftOf(null));
  const [saved, setSaved] = useState<string | null>(null);
  const [error, run, busy] = useAction();
  const show = (loaded: OwnOffer) => {
    setOffer(loaded.offer);
    setProposal(loaded.setupProposal);
    setDraft(draftOf(loaded.offer));
  };
  useEffect(() => {
    void run(async () => show(await get<OwnOffer>('offer')));
  }, []);
  if (offer === undefined) return <ErrorText error={error} />;
  const change = (field: keyof Draft) => (event: Event) => {
    setDraft({ ...draft, [field]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
    setSaved(null);
  };
  return (
    <>
      {proposal && (
        <ProposalNote
          proposal={proposal}
          use={() => {
            setDraft({ ...draft, subtitle: proposal.subtitle, imageUrl: proposal.imageUrl });
            setSaved('The suggestion is in the form: save the offer to use it.');
          }}
        />
      )}
      <div class="offer-editor">
        <form
          aria-label="Your offer"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const discount = formValue(form, 'discountPercent');
            setSaved(null);
            void run(async () => {
              const result = await post<OwnOffer>('offer', {
                title: formValue(form, 'title'),
                subtitle: formValue(form, 'subtitle') || null,
                imageUrl: formValue(form, 'imageUrl'),
                discountPercent: discount ? Number(discount) : null,
              });
              show(result);
              setSaved("Saved. Partners' shoppers see it right away.");
            });
          }}
        >
          <Field label="Title">
            <input name="title" required maxLength={80} value={draft.title} onInput={change('title')} />
          </Field>
          <Field label="Subtitle (optional)">
            <input name="subtitle" maxLength={120} value={draft.subtitle} onInput={change('subtitle')} />
          </Field>
          <Field label="Image URL">
            <input name="imageUrl" type="url" required maxLength={2000} value={draft.imageUrl} onInput={change('imageUrl')} />
          </Field>
          <Field label="Discount for new customers">
            <select name="discountPercent" value={draft.discountPercent} onChange={change('discountPercent')}>
              <option value="">No discount</option>
              {[10, 15, 20, 25].map((percent) => (
                <option value={String(percent)}>{percent}%</option>
              ))}
            </select>
          </Field>
          <ErrorText error={error} />
          <StatusText text={saved} />
          <button type="submit" disabled={busy}>
            Save offer
          </button>
        </form>
        <OfferPreview draft={draft} storeDomain={storeDomain} />
      </div>
      <ReferralLinks />
    </>
  );
}
