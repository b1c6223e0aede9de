import { useEffect, useState } from 'preact/hooks';
import { get, post, type Brand, type Partner, type Recommendation } from './api.ts';
import { ErrorText, Field, formValue, STATUS_LABELS, useAction } from './ui.tsx';

const LISTS = ['active', 'inviteReceived', 'inviteSent', 'declined'] as const;
const LIST_TITLES: Record<(typeof LISTS)[number], string> = {
  active: 'Partners',
  inviteReceived: 'Connection requests received',
  inviteSent: 'Connection requests sent',
  declined: 'Declined and removed',
};

/** The request form: a connection request carries an optional message. */
function RequestForm({ companyId, name, onSent }: { companyId: string; name: string; onSent: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [error, run, busy] = useAction();
  if (!open) return <button type="button" onClick={() => setOpen(true)}>Send connection request</button>;
  return (
    <form
      aria-label={`Connection request to ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        void run(async () => {
          await post(`partners/${encodeURIComponent(companyId)}/request`, { message: formValue(form, 'message') });
          setOpen(false);
          await onSent();
        });
      }}
    >
      <Field label={`Message to ${name}`}><textarea name="message" maxLength={1000} rows={2} /></Field>
      <ErrorText error={error} />
      <button type="submit" disabled={busy}>Send</button>
    </form>
  );
}

export function Partnerships() {
  const [lists, setLists] = useState<Record<string, Partner[]>>({});
  const [recommendations, setRecommendations] = useState<Recommendation[]>([]);
  const [results, setResults] = useState<Brand[] | null>(null);
  const [query, setQuery] = useState('');
  const [error, run] = useAction();

  const refresh = async () => {
    const loaded = await Promise.all(LISTS.map((status) => get<{ data: Partner[] }>(`partners?status=${status}`)));
    setLists(Object.fromEntries(LISTS.map((status, i) => [status, loaded[i]!.data])));
    setRecommendations((await get<{ data: Recommendation[] }>('recommendations')).data);
    if (query) setResults((await get<{ data: Brand[] }>(`brands?q=${encodeURIComponent(query)}`)).data);
  };
  useEffect(() => {
    void run(refresh);
  }, []);

  const act = (companyId: string, action: string) => run(async () => {
    await post(`partners/${encodeURIComponent(companyId)}/${action}`);
    await refresh();
  });

  const actionsFor = (partner: Partner) => {
    const name = partner.businessName ?? partner.companyId;
    switch (partner.status) {
      case 'inviteReceived':
        return (
          <>
            <button type="button" onClick={() => act(partner.companyId, 'accept')} aria-label={`Accept request from ${name}`}>Accept</button>
            <button type="button" class="secondary" onClick={() => act(partner.companyId, 'decline')} aria-label={`Decline request from ${name}`}>Decline</button>
          </>
        );
      case 'inviteSent':
        return <button type="button" class="secondary" onClick={() => act(partner.companyId, 'withdraw')} aria-label={`Withdraw request to ${name}`}>Withdraw</button>;
      case 'active':
        return <button type="button" class="secondary" onClick={() => act(partner.companyId, 'remove')} aria-label={`Remove partner ${name}`}>Remove partner</button>;
      default:
        return <RequestForm companyId={partner.companyId} name={name} onSent={refresh} />;
    }
  };

  return (
    <>
      <ErrorText error={error} />
      <section aria-labelledby="find-title">
        <h2 id="find-title">Find brands</h2>
        <form
          role="search"
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            const text = formValue(event.currentTarget, 'q').trim();
            setQuery(text);
            if (text) void run(async () => setResults((await get<{ data: Brand[] }>(`brands?q=${encodeURIComponent(text)}`)).data));
          }}
        >
          <Field label="Name, domain or category"><input name="q" type="search" required maxLength={100} /></Field>
          <button type="submit">Search</button>
        </form>
        {results && (
          <ul class="cards" aria-label="Search results">
            {results.length === 0 && <li>No brand matches.</li>}
            {results.map((brand) => (
              <li>
                <strong>{brand.businessName ?? brand.companyId}</strong> <span class="muted">{brand.domain}</span>
                {brand.categories.length > 0 && <span class="muted"> · {brand.categories.join(', ')}</span>}
                <div>
                  {brand.status && brand.status !== 'declined' && brand.status !== 'removed' ? (
                    <span class="badge">{STATUS_LABELS[brand.status]}</span>
                  ) : (
                    <RequestForm companyId={brand.companyId} name={brand.businessName ?? brand.companyId} onSent={refresh} />
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="recommended-title">
        <h2 id="recommended-title">Recommended for you</h2>
        <ul class="cards" aria-label="Recommendations">
          {recommendations.length === 0 && <li>No recommendations yet.</li>}
          {recommendations.map((item) => (
            <li>
              <strong>{item.businessName ?? item.domain}</strong> <span class="muted">{item.domain}</span>
              {item.matchRate !== undefined && <span class="badge">{item.matchRate}% match</span>}
              {item.companyId && <div><RequestForm companyId={item.companyId} name={item.businessName ?? item.domain ?? ''} onSent={refresh} /></div>}
            </li>
          ))}
        </ul>
      </section>

      {LISTS.map((status) => (
        <section aria-labelledby={`list-${status}`}>
          <h2 id={`list-${status}`}>{LIST_TITLES[status]}</h2>
          <ul class="cards" aria-label={LIST_TITLES[status]}>
            {(lists[status] ?? []).length === 0 && <li class="muted">None.</li>}
            {(lists[status] ?? []).map((partner) => (
              <li>
                <strong>{partner.businessName ?? partner.companyId}</strong> <span class="muted">{partner.domain}</span>{' '}
                <span class="badge">{STATUS_LABELS[partner.status]}</span>
                <div class="actions">{actionsFor(partner)}</div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
