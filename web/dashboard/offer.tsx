import { useEffect, useState } from 'preact/hooks';
import { get, post, type Offer } from './api.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

/** The brand's own offer: what partners show their shoppers in every collab. */
export function OfferPage() {
  const [offer, setOffer] = useState<Offer | null | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [error, run, busy] = useAction();
  useEffect(() => {
    void run(async () => setOffer((await get<{ offer: Offer | null }>('offer')).offer));
  }, []);
  if (offer === undefined) return <ErrorText error={error} />;
  return (
    <form
      aria-label="Your offer"
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const discount = formValue(form, 'discountPercent');
        setSaved(false);
        void run(async () => {
          const result = await post<{ offer: Offer }>('offer', {
            title: formValue(form, 'title'),
            subtitle: formValue(form, 'subtitle') || null,
            imageUrl: formValue(form, 'imageUrl'),
            discountPercent: discount ? Number(discount) : null,
          });
          setOffer(result.offer);
          setSaved(true);
        });
      }}
    >
      <Field label="Title">
        <input name="title" required maxLength={80} value={offer?.title} />
      </Field>
      <Field label="Subtitle (optional)">
        <input name="subtitle" maxLength={120} value={offer?.subtitle ?? ''} />
      </Field>
      <Field label="Image URL">
        <input name="imageUrl" type="url" required maxLength={2000} value={offer?.imageUrl} />
      </Field>
      <Field label="Discount for new customers">
        <select name="discountPercent" value={offer?.discountPercent ? String(offer.discountPercent) : ''}>
          <option value="">No discount</option>
          {[10, 15, 20, 25].map((percent) => (
            <option value={String(percent)}>{percent}%</option>
          ))}
        </select>
      </Field>
      <ErrorText error={error} />
      {saved && (
        <p class="notice" role="status">
          Saved. Partners' shoppers see it right away.
        </p>
      )}
      <button type="submit" disabled={busy}>
        Save offer
      </button>
    </form>
  );
}
