import { useEffect, useState } from 'preact/hooks';
import { post, type Claim, type ClaimCheck, type ClaimStarted, type Session } from './api.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';
import { BrandFields, brandFromForm } from './brand-fields.tsx';

/** How often a waiting claim is looked at again while its page is open. */
const CLAIM_RECHECK_MS = 4000;

/**
 * An account whose claim of a store waits for the store's owner: it confirms at the commerce
 * platform, comes back here, and the claim settles. It can claim again or join with a code.
 */
export function ClaimScreen({ session, onChanged }: { session: Session; onChanged: () => Promise<void> }) {
  const [claim, setClaim] = useState<Claim | null>(session.claim);
  const [error, run, busy] = useAction();

  const check = () =>
    run(async () => {
      const result = await post<ClaimCheck>('claim/check');
      if (result.companyId) await onChanged();
      else setClaim(result.claim);
    });
  // Coming back from the store's confirmation page lands here: the claim settles at once.
  useEffect(() => {
    if (session.claim?.status === 'pending') void check();
  }, []);
  // The owner may confirm elsewhere (in the app in the store's admin): while the claim waits, it is looked at again by itself.
  const pending = claim?.status === 'pending';
  useEffect(() => {
    if (!pending) return;
    const timer = window.setInterval(() => {
      void post<ClaimCheck>('claim/check')
        .then(async (result) => (result.companyId ? onChanged() : setClaim(result.claim)))
        .catch(() => undefined);
    }, CLAIM_RECHECK_MS);
    return () => window.clearInterval(timer);
  }, [pending]);

  return (
    <main class="narrow">
      <h1>Confirm your store</h1>
      <p class="muted">Signed in as {session.user?.email}. Your account acts for a brand once the owner of its store confirms it.</p>
      {claim && (
        <section aria-labelledby="claim-title" class="notice">
          <h2 id="claim-title">
            {claim.businessName} · {claim.domain}
          </h2>
          <p role="status">{claim.message}</p>
          {claim.status === 'pending' && (
            <div class="actions">
              {claim.confirmUrl && (
                <a class="button" href={claim.confirmUrl}>
                  Confirm at your store
                </a>
              )}
              <button type="button" class="secondary" disabled={busy} onClick={() => void check()}>
                I confirmed it, continue
              </button>
            </div>
          )}
        </section>
      )}
      <ErrorText error={error} />

      <section aria-labelledby="claim-again">
        <h2 id="claim-again">{claim?.status === 'pending' ? 'Claim another store instead' : 'Claim a store'}</h2>
        <form
          aria-label="Claim a store"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => setClaim((await post<ClaimStarted>('claim', { brand: brandFromForm(form) })).claim));
          }}
        >
          <BrandFields />
          <button type="submit" disabled={busy}>
            Claim store
          </button>
        </form>
      </section>

      <section aria-labelledby="join-title">
        <h2 id="join-title">Join your team's brand</h2>
        <form
          aria-label="Join with an invitation code"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              await post('join', { invitationCode: formValue(form, 'invitationCode') });
              await onChanged();
            });
          }}
        >
          <Field label="Invitation code" hint="A member of your brand creates it under Integrations.">
            <input name="invitationCode" required maxLength={100} />
          </Field>
          <button type="submit" class="secondary" disabled={busy}>
            Join
          </button>
        </form>
      </section>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          run(async () => {
            await post('sign-out');
            await onChanged();
          })
        }
      >
        Sign out
      </button>
    </main>
  );
}
