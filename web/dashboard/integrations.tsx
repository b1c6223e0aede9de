import { useEffect, useRef, useState } from 'preact/hooks';
import {
  get,
  post,
  type AppRegistered,
  type AuthorizedApp,
  type BrandKey,
  type Invitation,
  type IssuedKey as NewKey,
  type RegisteredApp,
} from './api.ts';
import { formatMoment } from './dates.ts';
import { ConfirmAction, ErrorText, Field, formValue, StatusText, useAction } from './ui.tsx';

const when = (iso: string | null) => (iso ? formatMoment(iso) : 'Never');

/** Who issued a key, in words: the staff member, support, a fixture file, or nothing recorded (keys older than the record). */
function issuerOf(key: BrandKey): string {
  if (key.createdBy) return key.createdBy.displayName ? `${key.createdBy.displayName} (${key.createdBy.email})` : key.createdBy.email;
  if (key.issuedBy === 'staff') return 'A former staff member';
  if (key.issuedBy === 'support') return 'Support';
  if (key.issuedBy === 'fixture') return 'A fixture file';
  return 'Not recorded';
}

/**
 * A secret shown once (an API key, an app's client secret), with a copy button. Where the browser
 * gives no clipboard (a plain http address on a LAN, for one), the secret is selected instead and
 * the person told to copy it.
 */
function SecretOnce({
  plaintext,
  noun,
  testId,
  focusOnShow = false,
}: {
  plaintext: string;
  noun: string;
  testId: string;
  /** Take the focus when shown, so a keyboard or screen reader user lands on the secret to copy. */
  focusOnShow?: boolean;
}) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'selected'>('idle');
  const secretText = useRef<HTMLElement>(null);
  useEffect(() => {
    if (focusOnShow) secretText.current?.focus();
  }, []);
  const selectSecret = () => {
    const selection = getSelection();
    if (!secretText.current || !selection) return;
    const range = document.createRange();
    range.selectNodeContents(secretText.current);
    selection.removeAllRanges();
    selection.addRange(range);
    setCopy('selected');
  };
  const copySecret = async () => {
    // Undefined outside secure contexts, whatever the type says.
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (clipboard) {
      try {
        await clipboard.writeText(plaintext);
        setCopy('copied');
        return;
      } catch {
        // Refused (no permission): fall back to selecting the secret.
      }
    }
    selectSecret();
  };
  return (
    <div class="notice">
      <p>Copy your {noun} now: it is shown only once.</p>
      <code data-testid={testId} ref={secretText} tabIndex={-1}>
        {plaintext}
      </code>{' '}
      <button type="button" onClick={() => void copySecret()} aria-label={`Copy ${noun}`}>
        {copy === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <p role="status">
        {copy === 'copied' && `The ${noun} is on your clipboard.`}
        {copy === 'selected' &&
          `This page cannot use the clipboard here, so the ${noun} is selected: press Ctrl+C (⌘C on a Mac) to copy it.`}
      </p>
    </div>
  );
}

/** OAuth apps the brand registers itself: an app that acts for brands that authorize it (this one included). */
function RegisteredApps({ onChanged }: { onChanged: () => Promise<void> }) {
  const [apps, setApps] = useState<RegisteredApp[] | null>(null);
  const [registered, setRegistered] = useState<AppRegistered | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, run, busy] = useAction({ name: 'app name', redirectUris: 'redirect URIs' });
  const refresh = async () => setApps((await get<{ data: RegisteredApp[] }>('oauth-apps')).data);
  useEffect(() => {
    void run(refresh);
  }, []);

  return (
    <section aria-labelledby="own-apps-title">
      <h2 id="own-apps-title">Your OAuth apps</h2>
      <p class="muted">
        Register an app that acts for brands through OAuth (docs: <a href="/docs">API reference</a>). Staff of a brand authorize it on a
        consent page; a server app also gets a client secret, shown once.
      </p>
      <form
        aria-label="Register an OAuth app"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const redirectUris = formValue(form, 'redirectUris')
            .split('\n')
            .map((uri) => uri.trim())
            .filter(Boolean);
          void run(async () => {
            setDone(null);
            const result = await post<AppRegistered>('oauth-apps', {
              name: formValue(form, 'name'),
              redirectUris,
              confidential: formValue(form, 'kind') === 'server',
            });
            setRegistered(result);
            form.reset();
            await refresh();
            await onChanged();
          });
        }}
      >
        <Field label="App name" hint="Shown to brand staff when they authorize it">
          <input name="name" required maxLength={100} />
        </Field>
        <Field label="Redirect URIs" hint="One a line: https, or http on 127.0.0.1, [::1] or localhost">
          <textarea name="redirectUris" required rows={2} maxLength={20 * 2001} />
        </Field>
        <fieldset>
          <legend>Kind of app</legend>
          <label class="choice">
            <input type="radio" name="kind" value="server" checked /> Server app: keeps a client secret
          </label>
          <label class="choice">
            <input type="radio" name="kind" value="public" /> Browser or mobile app: no secret, PKCE only
          </label>
        </fieldset>
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Register app
        </button>
      </form>
      {registered && (
        <div class="notice" data-testid="registered-app">
          <p>
            {registered.name} is registered. Its client id is <code>{registered.clientId}</code>.
          </p>
          {registered.clientSecret && (
            <SecretOnce key={registered.clientSecret} plaintext={registered.clientSecret} noun="client secret" testId="client-secret" />
          )}
        </div>
      )}
      <StatusText text={done} />
      {apps?.length === 0 && <p class="muted">You have registered no OAuth app.</p>}
      {apps && apps.length > 0 && (
        <table class="stack">
          <caption class="visually-hidden">Your OAuth apps</caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Client id</th>
              <th scope="col">Kind</th>
              <th scope="col">Redirect URIs</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {apps.map((app) => (
              <tr key={app.clientId}>
                <td data-label="App">{app.name}</td>
                <td data-label="Client id">
                  <code>{app.clientId}</code>
                </td>
                <td data-label="Kind">{app.confidential ? 'Server' : 'Browser or mobile'}</td>
                <td data-label="Redirect URIs">
                  {app.redirectUris.map((uri) => (
                    <code class="block">{uri}</code>
                  ))}
                </td>
                <td>
                  <ConfirmAction
                    label="Delete"
                    name={`Delete app ${app.name}`}
                    question={`Delete ${app.name}? Every brand's authorization of it ends, and its tokens stop working at once.`}
                    confirmLabel="Delete app"
                    onConfirm={() =>
                      run(async () => {
                        await post(`oauth-apps/${encodeURIComponent(app.clientId)}/delete`);
                        if (registered?.clientId === app.clientId) setRegistered(null);
                        await refresh();
                        await onChanged();
                        setDone(`${app.name} was deleted; its tokens no longer work.`);
                      })
                    }
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function Integrations({ keyPrefix, sandbox, domain }: { keyPrefix: string; sandbox: boolean; domain: string | null }) {
  const [keys, setKeys] = useState<BrandKey[] | null>(null);
  const [apps, setApps] = useState<AuthorizedApp[] | null>(null);
  const [issued, setIssued] = useState<NewKey | null>(null);
  const [invitation, setInvitation] = useState<string | null>(null);
  const [keyDone, setKeyDone] = useState<string | null>(null);
  const [keyIssuedNote, setKeyIssuedNote] = useState('');
  const [appDone, setAppDone] = useState<string | null>(null);
  const [error, run, busy] = useAction({ name: 'key name' });

  const refreshKeys = async () => setKeys((await get<{ data: BrandKey[] }>('keys')).data);
  const refreshApps = async () => setApps((await get<{ data: AuthorizedApp[] }>('apps')).data);
  useEffect(() => {
    void run(async () => {
      await Promise.all([refreshKeys(), refreshApps()]);
    });
  }, []);

  return (
    <>
      <ErrorText error={error} />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p class="muted">
          Keys on this host start with <code>{keyPrefix}</code>. Send them in the X-Api-Key header.
        </p>
        <p class="muted" data-testid="keys-belong-to-brand">
          A key belongs to your brand, not to the person who made it: it keeps working after they sign out, reset their password or leave.
          Every key of your brand is listed here, whoever made it; revoke one to stop it.
        </p>
        <form
          class="inline"
          aria-label="Generate an API key"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              setKeyDone(null);
              setKeyIssuedNote('');
              const name = formValue(form, 'name');
              const result = await post<NewKey>('keys', { name });
              setIssued(result);
              setKeyIssuedNote(`Key ${name} was generated. It is shown below only once: copy it now.`);
              form.reset();
              await refreshKeys();
            });
          }}
        >
          <Field label="Key name">
            <input name="name" required maxLength={100} />
          </Field>
          <button type="submit" disabled={busy}>
            Generate key
          </button>
        </form>
        {/* Announced while the focus moves to the key itself; always in the page, so the change is read out. */}
        <p role="status" class="visually-hidden" data-testid="key-issued-note">
          {keyIssuedNote}
        </p>
        {issued && <SecretOnce key={issued.key} plaintext={issued.key} noun="key" testId="new-key" focusOnShow />}
        <StatusText text={keyDone} />
        {keys?.length === 0 && <p class="muted">Your brand has no API keys. Generate one above; it is shown once.</p>}
        {keys && keys.length > 0 && (
          <table class="stack">
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Created by</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.keyId}>
                  <td data-label="Name">{key.name}</td>
                  <td data-label="Key">
                    <code>…{key.lastFour}</code>
                  </td>
                  <td data-label="Created">{when(key.createdAt)}</td>
                  <td data-label="Created by">{issuerOf(key)}</td>
                  <td data-label="Last used">{when(key.lastUsedAt)}</td>
                  <td data-label="Status">{key.revokedAt ? `Revoked ${formatMoment(key.revokedAt)}` : 'Active'}</td>
                  <td>
                    {key.revokedAt === null && (
                      <ConfirmAction
                        label="Revoke"
                        name={`Revoke key ${key.name}`}
                        question={`Revoke key ${key.name}? Requests that send it are refused from now on.`}
                        confirmLabel="Revoke key"
                        onConfirm={() =>
                          run(async () => {
                            await post(`keys/${key.keyId}/revoke`);
                            if (issued?.keyId === key.keyId) {
                              setIssued(null);
                              setKeyIssuedNote('');
                            }
                            await refreshKeys();
                            setKeyDone(`Key ${key.name} (…${key.lastFour}) was revoked: requests that send it are refused.`);
                          })
                        }
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="apps-title">
        <h2 id="apps-title">Authorized apps</h2>
        <StatusText text={appDone} />
        {apps?.length === 0 && <p class="muted">No app is authorized for your brand.</p>}
        {apps && apps.length > 0 && (
          <table class="stack">
            <caption class="visually-hidden">Authorized apps</caption>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Platform</th>
                <th scope="col">Authorized</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apps.map((app) => (
                <tr key={app.grantId}>
                  <td data-label="App">{app.name}</td>
                  <td data-label="Platform">{app.platform ?? '—'}</td>
                  <td data-label="Authorized">{when(app.authorizedAt)}</td>
                  <td>
                    <ConfirmAction
                      label="Revoke"
                      name={`Revoke ${app.name}`}
                      question={`Revoke ${app.name}? It can no longer act for your brand, and its tokens stop working at once.`}
                      confirmLabel="Revoke app"
                      onConfirm={() =>
                        run(async () => {
                          await post(`apps/${app.grantId}/revoke`);
                          await refreshApps();
                          setAppDone(`${app.name} was revoked: it can no longer act for your brand.`);
                        })
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <RegisteredApps onChanged={refreshApps} />

      <section aria-labelledby="team-title">
        <h2 id="team-title">Team</h2>
        <button
          type="button"
          class="secondary"
          onClick={() => run(async () => setInvitation((await post<Invitation>('invitations')).code))}
        >
          Create an invitation code
        </button>
        {invitation && (
          <p class="notice" role="status">
            Give this code to a colleague to sign up (valid 7 days, once): <code>{invitation}</code>
          </p>
        )}
      </section>

      {sandbox && domain && (
        <section aria-labelledby="sandbox-title">
          <h2 id="sandbox-title">Sandbox store</h2>
          <p class="muted">
            Your store runs on the sandbox commerce platform, which sends its orders to this service. Shoppers reach the{' '}
            <a href={`/sandbox/shop/${encodeURIComponent(domain)}`}>storefront</a> through partners' referral links; the{' '}
            <a href={`/sandbox/stores/${encodeURIComponent(domain)}`}>store admin</a> lists the orders and what the service answered.
          </p>
          <p class="muted">
            The store admin asks for the store owner's sign-in: for the demo brand, the one the service's start banner prints; for a store
            you claimed, the one you set up when you confirmed it.
          </p>
        </section>
      )}
    </>
  );
}
