import { useEffect, useState } from 'preact/hooks';
import { get, post } from './api.ts';
import { ErrorText, Field, formValue, money, useAction } from './ui.tsx';

interface Key { keyId: string; name: string; lastFour: string; createdAt: string; lastUsedAt: string | null }
interface AuthorizedApp { grantId: string; name: string; platform: string | null; authorizedAt: string }
interface OrderOutcome { orderId: string; platformId: string | null; newCustomer: boolean; commissionCents: number }

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

export function Integrations({ keyPrefix, sandbox }: { keyPrefix: string; sandbox: boolean }) {
  const [keys, setKeys] = useState<Key[]>([]);
  const [apps, setApps] = useState<AuthorizedApp[]>([]);
  const [issued, setIssued] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [invitation, setInvitation] = useState<string | null>(null);
  const [order, setOrder] = useState<OrderOutcome | null>(null);
  const [error, run, busy] = useAction();

  const refresh = async () => {
    setKeys((await get<{ data: Key[] }>('keys')).data);
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
        <p class="muted">Keys on this host start with <code>{keyPrefix}</code>. Send them in the X-Api-Key header.</p>
        <form
          class="inline"
          aria-label="Generate an API key"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              const result = await post<{ key: string }>('keys', { name: formValue(form, 'name') });
              setIssued(result.key);
              setCopied(false);
              form.reset();
              await refresh();
            });
          }}
        >
          <Field label="Key name"><input name="name" required maxLength={100} /></Field>
          <button type="submit" disabled={busy}>Generate key</button>
        </form>
        {issued && (
          <div class="notice" role="status">
            <p>Copy your key now: it is shown only once.</p>
            <code data-testid="new-key">{issued}</code>{' '}
            <button
              type="button"
              onClick={async () => {
                await navigator.clipboard.writeText(issued);
                setCopied(true);
              }}
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        )}
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {keys.map((key) => (
              <tr>
                <td>{key.name}</td>
                <td><code>…{key.lastFour}</code></td>
                <td>{when(key.createdAt)}</td>
                <td>{when(key.lastUsedAt)}</td>
                <td>
                  <button type="button" class="secondary" aria-label={`Revoke key ${key.name}`} onClick={() => run(async () => {
                    await post(`keys/${key.keyId}/revoke`);
                    await refresh();
                  })}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="apps-title">
        <h2 id="apps-title">Authorized apps</h2>
        {apps.length === 0 ? <p class="muted">No app is authorized for your brand.</p> : (
          <table>
            <caption class="visually-hidden">Authorized apps</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Platform</th><th scope="col">Authorized</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {apps.map((app) => (
                <tr>
                  <td>{app.name}</td>
                  <td>{app.platform ?? '—'}</td>
                  <td>{when(app.authorizedAt)}</td>
                  <td>
                    <button type="button" class="secondary" aria-label={`Revoke ${app.name}`} onClick={() => run(async () => {
                      await post(`apps/${app.grantId}/revoke`);
                      await refresh();
                    })}>Revoke</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="team-title">
        <h2 id="team-title">Team</h2>
        <button type="button" class="secondary" onClick={() => run(async () => setInvitation((await post<{ code: string }>('invitations')).code))}>
          Create an invitation code
        </button>
        {invitation && <p class="notice" role="status">Give this code to a colleague to sign up (valid 7 days, once): <code>{invitation}</code></p>}
      </section>

      {sandbox && (
        <section aria-labelledby="sandbox-title">
          <h2 id="sandbox-title">Sandbox store</h2>
          <p class="muted">Place a test order at your sandbox store, as a shopper sent by a partner would.</p>
          <form
            aria-label="Place a sandbox order"
            onSubmit={(event) => {
              event.preventDefault();
              const form = event.currentTarget;
              const text = (name: string) => formValue(form, name).trim() || undefined;
              void run(async () => {
                setOrder(await post<OrderOutcome>('sandbox/orders', {
                  referralToken: text('referralToken'),
                  discountCode: text('discountCode'),
                  customerId: text('customerId'),
                  totalCents: text('total') ? Math.round(Number(text('total')) * 100) : undefined,
                }));
              });
            }}
          >
            <Field label="Referral token (optional)" hint="The part after /r/ of the link the shopper followed"><input name="referralToken" maxLength={64} /></Field>
            <Field label="Discount code (optional)"><input name="discountCode" maxLength={100} /></Field>
            <Field label="Customer id (optional)"><input name="customerId" maxLength={200} /></Field>
            <Field label="Order total in dollars (optional)"><input name="total" type="number" min="0" step="0.01" /></Field>
            <button type="submit" disabled={busy}>Place order</button>
          </form>
          {order && (
            <p class="notice" role="status">
              Order {order.orderId}: {order.platformId ? `credited to platform ${order.platformId}` : 'not attributed'}
              {order.newCustomer ? `, new customer, commission ${money(order.commissionCents)}` : ', returning customer'}.
            </p>
          )}
        </section>
      )}
    </>
  );
}
