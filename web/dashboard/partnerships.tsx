import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, type Brand, type Partner, type PartnerPage, type Recommendation, type Recommendations } from './api.ts';
import { MatchWhy } from './match-why.tsx';
import { ConfirmAction, ErrorText, Field, formValue, STATUS_LABELS, StatusText, useAction } from './ui.tsx';

const LISTS = ['active', 'inviteReceived', 'inviteSent', 'declined'] as const;
const LIST_TITLES: Record<(typeof LISTS)[number], string> = {
  active: 'Partners',
  inviteReceived: 'Connection requests received',
  inviteSent: 'Connection requests sent',
  declined: 'Declined and removed',
};
type List = (typeof LISTS)[number];
const PAGE_SIZE = 20;
/** While a new brand's matches are found, the recommendations are asked for again this often, at most this many times (a minute). */
const SCORING_POLL_MS = 1_500;
const MAX_SCORING_POLLS = 40;

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

/** Said where the request was sent from, in place of the form; focus moves to it, so nothing vanishes under the person. */
function RequestSent({ name }: { name: string }) {
  const text = useRef<HTMLParagraphElement>(null);
  useEffect(() => text.current?.focus(), []);
  return (
    <p class="notice" role="status" tabIndex={-1} ref={text}>
      Request sent to {name}. It waits under Connection requests sent until {name} answers.
    </p>
  );
}

/** The request form: a connection request carries an optional message. */
function RequestForm({ companyId, name, onSent }: { companyId: string; name: string; onSent: (companyId: string) => Promise<void> }) {
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
          await onSent(companyId);
        });
      }}
    >
      <Field label={`Message to ${name}`}>
        <textarea name="message" maxLength={1000} rows={2} />
      </Field>
      <ErrorText error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Send
        </button>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function Partnerships() {
  const [lists, setLists] = useState<Partial<Record<List, PartnerPage>>>({});
  const [pages, setPages] = useState<Record<List, number>>({ active: 1, inviteReceived: 1, inviteSent: 1, declined: 1 });
  const [recommendations, setRecommendations] = useState<Recommendation[] | null>(null);
  /** Whether the engine is still finding this brand's first matches: 'slow' once the page stopped asking. */
  const [finding, setFinding] = useState<'no' | 'yes' | 'slow'>('no');
  const scoringPolls = useRef(0);
  const [results, setResults] = useState<Brand[] | null>(null);
  const [query, setQuery] = useState('');
  /** Brands a request went to from this page: their cards say so where the person clicked. */
  const [sentTo, setSentTo] = useState<ReadonlySet<string>>(new Set());
  /** What the latest accept, decline, withdraw or remove did, said under the list it was done in. */
  const [done, setDone] = useState<{ list: List; text: string } | null>(null);
  const [error, run] = useAction();

  const loadList = (status: List, page: number) => get<PartnerPage>(`partners?status=${status}&pageIndex=${page}&pageSize=${PAGE_SIZE}`);
  const refreshLists = async (at = pages) => {
    const loaded = await Promise.all(LISTS.map((status) => loadList(status, at[status])));
    // The page numbers change with the lists they name, so the pager never names a page it does not show yet.
    setLists(Object.fromEntries(LISTS.map((status, i) => [status, loaded[i]!])));
    setPages(at);
  };
  const loadRecommendations = async () => {
    const loaded = await get<Recommendations>('recommendations');
    setRecommendations(loaded.data);
    setFinding(loaded.scoring ? (scoringPolls.current >= MAX_SCORING_POLLS ? 'slow' : 'yes') : 'no');
  };
  const refresh = async (at = pages) => {
    await refreshLists(at);
    await loadRecommendations();
    if (query) setResults((await get<{ data: Brand[] }>(`brands?q=${encodeURIComponent(query)}`)).data);
  };
  useEffect(() => {
    void run(refresh);
  }, []);
  // A store just confirmed has no scores yet: ask again until the ranked list exists, for a minute at most.
  useEffect(() => {
    if (finding !== 'yes') return;
    const timer = setTimeout(() => {
      scoringPolls.current += 1;
      void run(loadRecommendations);
    }, SCORING_POLL_MS);
    return () => clearTimeout(timer);
  }, [finding, recommendations]);

  // The card a request was sent from stays, saying so; the lists below show the new request.
  const requestSent = async (companyId: string) => {
    setSentTo((sent) => new Set([...sent, companyId]));
    await refreshLists();
  };

  const act = (list: List, companyId: string, action: string, text: string) =>
    run(async () => {
      setDone(null);
      await post(`partners/${encodeURIComponent(companyId)}/${action}`);
      await refresh();
      setDone({ list, text });
    });

  const turnPage = (status: List, page: number) =>
    run(async () => {
      await refresh({ ...pages, [status]: page });
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
            <button
              type="button"
              onClick={() => act('inviteReceived', partner.companyId, 'accept', `You and ${name} are partners now.`)}
              aria-label={`Accept request from ${name}`}
            >
              Accept
            </button>
            <ConfirmAction
              label="Decline"
              name={`Decline request from ${name}`}
              question={`Decline the request from ${name}? They can send a new one later.`}
              confirmLabel="Decline request"
              onConfirm={() => act('inviteReceived', partner.companyId, 'decline', `You declined the request from ${name}.`)}
            />
          </>
        );
      case 'inviteSent':
        return (
          <ConfirmAction
            label="Withdraw"
            name={`Withdraw request to ${name}`}
            question={`Withdraw your request to ${name}?`}
            confirmLabel="Withdraw request"
            onConfirm={() => act('inviteSent', partner.companyId, 'withdraw', `You withdrew your request to ${name}.`)}
          />
        );
      case 'active':
        return (
          <ConfirmAction
            label="Remove partner"
            name={`Remove partner ${name}`}
            question={`Remove ${name} as a partner? Your campaigns with ${name} close.`}
            confirmLabel="Remove partner"
            onConfirm={() =>
              act('active', partner.companyId, 'remove', `${name} is no longer a partner; your campaigns with ${name} are closed.`)
            }
          />
        );
      default:
        return <RequestForm companyId={partner.companyId} name={name} onSent={requestSent} />;
    }
  };

  /** A brand's card in the search results or the recommendations: a request, or what became of one. */
  const requestOrState = (companyId: string, name: string, status: Brand['status']) => {
    if (sentTo.has(companyId)) return <RequestSent name={name} />;
    if (status && status !== 'declined' && status !== 'removed') return <span class="badge">{STATUS_LABELS[status]}</span>;
    return <RequestForm companyId={companyId} name={name} onSent={requestSent} />;
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
              <li key={brand.companyId}>
                <strong>{brand.businessName ?? brand.companyId}</strong> <span class="muted">{brand.domain}</span>
                {brand.categories.length > 0 && <span class="muted"> · {brand.categories.join(', ')}</span>}
                <div>{requestOrState(brand.companyId, brand.businessName ?? brand.companyId, brand.status)}</div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="recommended-title">
        <h2 id="recommended-title">Recommended for you</h2>
        <p role="status" class={finding === 'no' ? 'status-empty' : 'notice'}>
          {finding === 'yes' && 'Finding the brands that match yours best… The ranked list appears here in a moment.'}
          {finding === 'slow' && 'Finding your matches takes longer than usual. Until then, these brands are not ranked.'}
        </p>
        {finding === 'slow' && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              scoringPolls.current = 0;
              void run(loadRecommendations);
            }}
          >
            Check again
          </button>
        )}
        <ul class="cards" aria-label="Recommendations" aria-busy={recommendations === null || finding === 'yes'}>
          {(recommendations === null || finding === 'yes') && <li class="muted">Loading…</li>}
          {finding !== 'yes' && recommendations?.length === 0 && <li>No recommendations yet.</li>}
          {(finding === 'yes' ? [] : (recommendations ?? [])).map((item) => (
            <li key={item.companyId ?? item.domain}>
              <strong>{item.businessName ?? item.domain}</strong> <span class="muted">{item.domain}</span>
              {item.matchRate !== undefined && <span class="badge">{item.matchRate}% match</span>}
              {item.matchRate !== undefined && item.matchTerms && <MatchWhy rate={item.matchRate} terms={item.matchTerms} />}
              {item.companyId && <div>{requestOrState(item.companyId, item.businessName ?? item.domain ?? '', null)}</div>}
            </li>
          ))}
        </ul>
      </section>

      {LISTS.map((status) => {
        const list = lists[status];
        return (
          <section aria-labelledby={`list-${status}`}>
            <h2 id={`list-${status}`}>{LIST_TITLES[status]}</h2>
            <StatusText text={done?.list === status ? done.text : null} />
            <ul class="cards" aria-label={LIST_TITLES[status]} aria-busy={list === undefined}>
              {list === undefined && <li class="muted">Loading…</li>}
              {list?.data.length === 0 && <li class="muted">None.</li>}
              {(list?.data ?? []).map((partner) => {
                const message = list?.messages?.[partner.companyId];
                return (
                  <li key={partner.companyId}>
                    <strong>{partner.businessName ?? partner.companyId}</strong> <span class="muted">{partner.domain}</span>{' '}
                    <span class="badge">{STATUS_LABELS[partner.status]}</span>
                    {message && (
                      <blockquote class="request-message">
                        <span class="visually-hidden">{partner.status === 'inviteSent' ? 'Your message: ' : 'Their message: '}</span>
                        {message}
                      </blockquote>
                    )}
                    <div class="actions">{actionsFor(partner, list?.current?.[partner.companyId])}</div>
                  </li>
                );
              })}
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
