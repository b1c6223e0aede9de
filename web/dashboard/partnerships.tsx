import { useEffect, useState } from 'preact/hooks';
import { get, post, type Brand, type Partner, type PartnerPage, type Recommendation } from './api.ts';
import { ErrorText, Field, formValue, STATUS_LABELS, useAction } from './ui.tsx';

const LISTS = ['active', 'inviteReceived', 'inviteSent', 'declined'] as const;
const LIST_TITLES: Record<(typeof LISTS)[number], string> = {
  active: 'Partners',
  inviteReceived: 'Connection requests received',
  inviteSent: 'Connection requests sent',
  declined: 'Declined and removed',
};
type List = (typeof LISTS)[number];
const PAGE_SIZE = 20;

/** A list's page controls: previous and next, with where the page is. */
function Pager({ list, page, totalRows, onPage }: { list: string; page: number; totalRows: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(totalRows / PAGE_SIZE));
  if (pages === 1) return null;
  return (
    <nav class="pager" aria-label={`${list} pages`}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} · {totalRows} in all
      </span>
      <button type="button" class="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** The request form: a connection request carries an optional message. */
function RequestForm({ companyId, name, onSent }: { companyId: string; name: string; onSent: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [error, run, busy] = useAction();
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Send connection request
      </button>
    );
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
      <Field label={`Message to ${name}`}>
        <textarea name="message" maxLength={1000} rows={2} />
      </Field>
      <ErrorText error={error} />
      <button type="submit" disabled={busy}>
        Send
      </button>
    </form>
  );
}

export function Partnerships() {
  const [lists, setLists] = useState<Partial<Record<List, PartnerPage>>>({});
  const [pages, setPages] = useState<Record<List, number>>({ active: 1, inviteReceived: 1, inviteSent: 1, declined: 1 });
  const [recommendations, setRecommendations] = useState<Recommendation[] | null>(null);
  const [results, setResults] = useState<Brand[] | null>(null);
  const [query, setQuery] = useState('');
  const [error, run] = useAction();

  const loadList = (status: List, page: number) => get<PartnerPage>(`partners?status=${status}&pageIndex=${page}&pageSize=${PAGE_SIZE}`);
  const refresh = async (at = pages) => {
    const loaded = await Promise.all(LISTS.map((status) => loadList(status, at[status])));
    setLists(Object.fromEntries(LISTS.map((status, i) => [status, loaded[i]!])));
    setRecommendations((await get<{ data: Recommendation[] }>('recommendations')).data);
    if (query) setResults((await get<{ data: Brand[] }>(`brands?q=${encodeURIComponent(query)}`)).data);
  };
  useEffect(() => {
    void run(refresh);
  }, []);

  const act = (companyId: string, action: string) =>
    run(async () => {
      await post(`partners/${encodeURIComponent(companyId)}/${action}`);
      await refresh();
    });

  const turnPage = (status: List, page: number) =>
    run(async () => {
      const next = { ...pages, [status]: page };
      setPages(next);
      await refresh(next);
    });

  const actionsFor = (partner: Partner, current: string | undefined) => {
    const name = partner.businessName ?? partner.companyId;
    // A declined or removed row is history: when the pair moved on, say where they stand now.
    if ((partner.status === 'declined' || partner.status === 'removed') && current && current !== 'declined' && current !== 'removed') {
      return <span class="badge">Now: {STATUS_LABELS[current]}</span>;
    }
    switch (partner.status) {
      case 'inviteReceived':
        return (
          <>
            <button type="button" onClick={() => act(partner.companyId, 'accept')} aria-label={`Accept request from ${name}`}>
              Accept
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => act(partner.companyId, 'decline')}
              aria-label={`Decline request from ${name}`}
            >
              Decline
            </button>
          </>
        );
      case 'inviteSent':
        return (
          <button
            type="button"
            class="secondary"
            onClick={() => act(partner.companyId, 'withdraw')}
            aria-label={`Withdraw request to ${name}`}
          >
            Withdraw
          </button>
        );
      case 'active':
        return (
          <button type="button" class="secondary" onClick={() => act(partner.companyId, 'remove')} aria-label={`Remove partner ${name}`}>
            Remove partner
          </button>
        );
      default:
        return <RequestForm companyId={partner.companyId} name={name} onSent={refresh} />;
    }
  };

  return (
    <>
      <ErrorText error={error} />
      <section aria-labelledby="find-title">
        <h2 id="find-title">Find brands</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: a form landmark with the search role; <search> is not yet in Preact's JSX types */}
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
          <Field label="Name, domain or category">
            <input name="q" type="search" required maxLength={100} />
          </Field>
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
        <ul class="cards" aria-label="Recommendations" aria-busy={recommendations === null}>
          {recommendations === null && <li class="muted">Loading…</li>}
          {recommendations?.length === 0 && <li>No recommendations yet.</li>}
          {(recommendations ?? []).map((item) => (
            <li>
              <strong>{item.businessName ?? item.domain}</strong> <span class="muted">{item.domain}</span>
              {item.matchRate !== undefined && <span class="badge">{item.matchRate}% match</span>}
              {item.companyId && (
                <div>
                  <RequestForm companyId={item.companyId} name={item.businessName ?? item.domain ?? ''} onSent={refresh} />
                </div>
              )}
            </li>
          ))}
        </ul>
      </section>

      {LISTS.map((status) => {
        const list = lists[status];
        return (
          <section aria-labelledby={`list-${status}`}>
            <h2 id={`list-${status}`}>{LIST_TITLES[status]}</h2>
            <ul class="cards" aria-label={LIST_TITLES[status]} aria-busy={list === undefined}>
              {list === undefined && <li class="muted">Loading…</li>}
              {list?.data.length === 0 && <li class="muted">None.</li>}
              {(list?.data ?? []).map((partner) => (
                <li>
                  <strong>{partner.businessName ?? partner.companyId}</strong> <span class="muted">{partner.domain}</span>{' '}
                  <span class="badge">{STATUS_LABELS[partner.status]}</span>
                  <div class="actions">{actionsFor(partner, list?.current?.[partner.companyId])}</div>
                </li>
              ))}
            </ul>
            {list && (
              <Pager
                list={LIST_TITLES[status]}
                page={pages[status]}
                totalRows={list.totalRows}
                onPage={(page) => void turnPage(status, page)}
              />
            )}
          </section>
        );
      })}
    </>
  );
}
