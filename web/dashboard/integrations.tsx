import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, type AuthorizedApp, type BrandKey, type Invitation, type IssuedKey as NewKey } from './api.ts';
import { ErrorText, Field, formValue, useAction } from './ui.tsx';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/**
 * The new key, shown once, with a copy button. Where the browser gives no clipboard (a plain
 * http address on a LAN, for one), the key is selected instead and the person told to copy it.
 */
function IssuedKey({ plaintext }: { plaintext: string }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'selected'>('idle');
  const keyText = useRef<HTMLElement>(null);
  const selectKey = () => {
    const selection = getSelection();
    if (!keyText.current || !selection) return;
    const range = document.createRange();
    range.selectNodeContents(keyText.current);
    selection.removeAllRanges();
    selection.addRange(range);
    setCopy('selected');
  };
  const copyKey = async () => {
    // Undefined outside secure contexts, whatever the type says.
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (clipboard) {
      try {
        await clipboard.writeText(plaintext);
        setCopy('copied');
        return;
      } catch {
        // Refused (no permission): fall back to selecting the key.
      }
    }
    selectKey();
  };
  return (
    <div class="notice">
      <p>Copy your key now: it is shown only once.</p>
      <code data-testid="new-key" ref={keyText}>
        {plaintext}
      </code>{' '}
      <button type="button" onClick={() => void copyKey()}>
        {copy === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <p role="status">
        {copy === 'copied' && 'The key is on your clipboard.'}
        {copy === 'selected' && 'This page cannot use the clipboard here, so the key is selected: press Ctrl+C (⌘C on a Mac) to copy it.'}
      </p>
    </div>
  );
}

export function Integrations({ keyPrefix, sandbox, domain }: { keyPrefix: string; sandbox: boolean; domain: string | null }) {
  const [keys, setKeys] = useState<BrandKey[]>([]);
  const [apps, setApps] = useState<AuthorizedApp[]>([]);
  const [issued, setIssued] = useState<string | null>(null);
  const [invitation, setInvitation] = useState<string | null>(null);
  const [error, run, busy] = useAction();

  const refresh = async () => {
    setKeys((await get<{ data: BrandKey[] }>('keys')).data);
    setApps((await get<{ data: AuthorizedApp[] }>('apps')).data);
  };
  useEffect(() => {
    void run(refresh);
  }, []);

  return (
    <>
      <ErrorText error={error} />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p class="muted">
          Keys on this host start with <code>{keyPrefix}</code>. Send them in the X-Api-Key header.
        </p>
        <form
          class="inline"
          aria-label="Generate an API key"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              const result = await post<NewKey>('keys', { name: formValue(form, 'name') });
              setIssued(result.key);
              form.reset();
              await refresh();
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
        {issued && <IssuedKey key={issued} plaintext={issued} />}
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr>
                <td>{key.name}</td>
                <td>
                  <code>…{key.lastFour}</code>
                </td>
                <td>{when(key.createdAt)}</td>
                <td>{when(key.lastUsedAt)}</td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Revoke key ${key.name}`}
                    onClick={() =>
                      run(async () => {
                        await post(`keys/${key.keyId}/revoke`);
                        await refresh();
                      })
                    }
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="apps-title">
        <h2 id="apps-title">Authorized apps</h2>
        {apps.length === 0 ? (
          <p class="muted">No app is authorized for your brand.</p>
        ) : (
          <table>
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
                <tr>
                  <td>{app.name}</td>
                  <td>{app.platform ?? '—'}</td>
                  <td>{when(app.authorizedAt)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Revoke ${app.name}`}
                      onClick={() =>
                        run(async () => {
                          await post(`apps/${app.grantId}/revoke`);
                          await refresh();
                        })
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

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
        </section>
      )}
    </>
  );
}
