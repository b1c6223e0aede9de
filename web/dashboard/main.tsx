import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, setCsrfToken, type Session } from './api.ts';
import { AuthScreens } from './auth.tsx';
import { ClaimScreen } from './claim.tsx';
import { Partnerships } from './partnerships.tsx';
import { Campaigns } from './campaigns.tsx';
import { OfferPage } from './offer.tsx';
import { Integrations } from './integrations.tsx';
import { PerformancePage } from './performance.tsx';
import { StatementsPage } from './statements.tsx';

const SECTIONS = [
  ['partnerships', 'Partnerships'],
  ['campaigns', 'Campaigns'],
  ['offer', 'Your offer'],
  ['integrations', 'Integrations'],
  ['performance', 'Performance'],
  ['statements', 'Statements'],
] as const;
type Section = (typeof SECTIONS)[number][0];

function sectionFromHash(): Section {
  const name = location.hash.replace(/^#\/?/, '');
  return (SECTIONS.find(([id]) => id === name)?.[0] ?? 'partnerships') as Section;
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [section, setSection] = useState<Section>(sectionFromHash());
  /** On a phone the sections fold into a menu, so the header stays one line. */
  const [menuOpen, setMenuOpen] = useState(false);

  const load = async () => {
    const loaded = await get<Session>('session');
    setCsrfToken(loaded.csrfToken);
    setSession(loaded);
  };
  const heading = useRef<HTMLHeadingElement>(null);
  const menuToggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    void load();
    const onHash = () => {
      setSection(sectionFromHash());
      setMenuOpen(false);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // After signing in and on each new section, focus goes to the page's heading, so a screen reader starts there.
  const signedIn = Boolean(session?.user?.companyId);
  useEffect(() => {
    if (signedIn) heading.current?.focus();
  }, [signedIn, section]);
  // Escape folds the phone menu and gives focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuToggle.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [menuOpen]);

  if (!session)
    return (
      <main class="narrow">
        <p>Loading…</p>
      </main>
    );
  if (!session.user) return <AuthScreens onSignedIn={load} devMailbox={session.devMailbox} demoSignIn={session.demoSignIn} />;
  if (!session.user.companyId) return <ClaimScreen session={session} onChanged={load} />;

  const title = SECTIONS.find(([id]) => id === section)![1];
  return (
    <>
      {/* The sections live in the address's hash, so the skip control moves focus itself rather than change it. */}
      <button type="button" class="skip-link" onClick={() => heading.current?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <span class="brand">{session.user.brandName ?? 'Your brand'}</span>
        <button
          ref={menuToggle}
          type="button"
          class="secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="dashboard-sections"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="dashboard-sections" class={menuOpen ? 'open' : undefined} aria-label="Dashboard sections">
          {SECTIONS.map(([id, label]) => (
            <a href={`#/${id}`} aria-current={id === section ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await post('sign-out');
            await load();
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main-content">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {section === 'partnerships' && <Partnerships />}
        {section === 'campaigns' && <Campaigns />}
        {section === 'offer' && <OfferPage storeDomain={session.user.domain} />}
        {section === 'integrations' && (
          <Integrations keyPrefix={session.keyPrefix} sandbox={session.sandbox} domain={session.user.domain} />
        )}
        {section === 'performance' && <PerformancePage />}
        {section === 'statements' && <StatementsPage />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
