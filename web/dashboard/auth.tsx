import { useEffect, useState } from 'preact/hooks';
import { post } from './api.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';
import { BrandFields, brandFromForm } from './brand-fields.tsx';

type Screen = 'sign-in' | 'sign-up' | 'sent' | 'finish' | 'reset';

/** The link a sign-up mails: `#/finish-sign-up/<token>` (in the fragment, so no server or log sees the token). */
const FINISH_PREFIX = '#/finish-sign-up/';
const finishToken = (): string | null => (location.hash.startsWith(FINISH_PREFIX) ? location.hash.slice(FINISH_PREFIX.length) : null);

/** `#/sign-up` and `#/reset` open those screens (the OAuth sign-in page links the first); a sign-up's link opens the last step. */
const screenFromHash = (): Screen =>
  finishToken() !== null ? 'finish' : location.hash === '#/reset' ? 'reset' : location.hash === '#/sign-up' ? 'sign-up' : 'sign-in';

export function AuthScreens({
  onSignedIn,
  devMailbox,
  demoSignIn,
}: {
  onSignedIn: () => Promise<void>;
  devMailbox: boolean;
  demoSignIn: { email: string; password: string; brandName: string } | null;
}) {
  const [screen, setScreen] = useState<Screen>(screenFromHash());
  const [error, run, busy, setError] = useAction();
  const [joining, setJoining] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState('');
  const [token, setToken] = useState(finishToken);
  // A sign-up's link pasted into this tab changes only the fragment: the page does not load again.
  useEffect(() => {
    const onHash = () => {
      const next = finishToken();
      if (next === null) return;
      setToken(next);
      setScreen('finish');
      setError(null);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  // A message is about the form it came from: another tab starts clean.
  const switchTo = (next: Screen) => {
    setScreen(next);
    setNotice(null);
    setError(null);
  };

  return (
    <main class="narrow">
      <h1>Brand dashboard</h1>
      <nav class="tabs" aria-label="Account">
        <button type="button" aria-pressed={screen === 'sign-in'} onClick={() => switchTo('sign-in')}>
          Sign in
        </button>
        <button type="button" aria-pressed={screen === 'sign-up'} onClick={() => switchTo('sign-up')}>
          Sign up
        </button>
        <button type="button" aria-pressed={screen === 'reset'} onClick={() => switchTo('reset')}>
          Reset password
        </button>
      </nav>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}

      {screen === 'sign-in' && (
        <form
          aria-label="Sign in"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              await post('sign-in', { email: formValue(form, 'email'), password: formValue(form, 'password') });
              await onSignedIn();
            });
          }}
        >
          <Field label="Email">
            <input name="email" type="email" autocomplete="username" required maxLength={254} />
          </Field>
          <Field label="Password">
            <input name="password" type="password" autocomplete="current-password" required maxLength={256} />
          </Field>
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          {demoSignIn && (
            <p class="muted" data-testid="demo-sign-in">
              To look around this test host, sign in as the demo staff of {demoSignIn.brandName}.
              <br />
              Email <code>{demoSignIn.email}</code>, password <code>{demoSignIn.password}</code>
            </p>
          )}
        </form>
      )}

      {screen === 'sign-up' && (
        <form
          aria-label="Sign up"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const email = formValue(form, 'email');
            const body = joining ? { email, invitationCode: formValue(form, 'invitationCode') } : { email, brand: brandFromForm(form) };
            void run(async () => {
              await post('sign-up', body);
              setSentTo(email.trim());
              setScreen('sent');
            });
          }}
        >
          <fieldset>
            <legend>Your brand</legend>
            <label class="choice">
              <input type="radio" name="mode" checked={!joining} onChange={() => setJoining(false)} /> My store's brand
            </label>
            <label class="choice">
              <input type="radio" name="mode" checked={joining} onChange={() => setJoining(true)} /> Join my team's brand
            </label>
          </fieldset>
          {joining ? (
            <Field label="Invitation code" hint="A member of your brand creates it under Integrations.">
              <input name="invitationCode" required maxLength={100} />
            </Field>
          ) : (
            <BrandFields />
          )}
          <Field label="Email" hint="We mail it a link: you choose your password there.">
            <input name="email" type="email" autocomplete="username" required maxLength={254} />
          </Field>
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Create account
          </button>
        </form>
      )}

      {screen === 'sent' && (
        <section aria-labelledby="sent-heading">
          <h2 id="sent-heading">Check your mail</h2>
          <p>
            We sent a mail to <strong class="address">{sentTo}</strong>. Open the link in it within 24 hours to choose your password and
            finish signing up.
          </p>
          <p class="muted">If this address already has an account, the mail says so instead: sign in, or reset your password.</p>
          <DevMailboxHint shown={devMailbox} />
        </section>
      )}

      {screen === 'finish' && (
        <form
          aria-labelledby="finish-heading"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              await post('sign-up/finish', { token, password: formValue(form, 'password') });
              // The link is spent: the address bar no longer carries it.
              history.replaceState(null, '', '/dashboard');
              await onSignedIn();
            });
          }}
        >
          <h2 id="finish-heading">Finish signing up</h2>
          <p>Your address is confirmed by this link. Choose your password and create your account; the link works once.</p>
          <Field label="Password" hint="At least 12 characters">
            <input name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={256} />
          </Field>
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Create my account
          </button>
        </form>
      )}

      {screen === 'reset' && (
        <>
          <form
            aria-label="Request a password reset"
            onSubmit={(event) => {
              event.preventDefault();
              const form = event.currentTarget;
              void run(async () => {
                await post('password-reset', { email: formValue(form, 'email') });
                setNotice('If the email has an account, we sent it a reset token. It works once, for 30 minutes.');
              });
            }}
          >
            <Field label="Email">
              <input name="email" type="email" autocomplete="username" required maxLength={254} />
            </Field>
            <button type="submit" disabled={busy}>
              Send reset token
            </button>
          </form>
          <DevMailboxHint shown={devMailbox} />
          <form
            aria-label="Set a new password"
            onSubmit={(event) => {
              event.preventDefault();
              const form = event.currentTarget;
              void run(async () => {
                await post('password-reset/confirm', { token: formValue(form, 'token').trim(), password: formValue(form, 'password') });
                switchTo('sign-in');
                setNotice('Your password was changed. Sign in with the new one.');
              });
            }}
          >
            <Field label="Reset token" hint="From the mail we sent you">
              <input name="token" required maxLength={100} autocomplete="one-time-code" />
            </Field>
            <Field label="New password" hint="At least 12 characters">
              <input name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={256} />
            </Field>
            <ErrorText error={error} />
            <button type="submit" disabled={busy}>
              Set new password
            </button>
          </form>
        </>
      )}
    </main>
  );
}

function DevMailboxHint({ shown }: { shown: boolean }) {
  if (!shown) return null;
  return (
    <p class="muted">
      This test host sends no real mail: read it in the{' '}
      <a href="/account/dev-mailbox" target="_blank" rel="noopener">
        development mailbox
      </a>
      .
    </p>
  );
}
