import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ActionLink, OfferPreview, ProgressStep } from '../../src/embed/embed-contract';
import type { CapRaiseView, EmbedBoot, EmbedState } from '../../src/embed/embed-view';
import { currencyAmount } from '../dashboard/money';
import { exchangeSecret, fetchBilling, fetchState, ServiceError, turnBackOn, turnOnCrossPromotion } from './api';
import { createBridge } from './bridge';

type View = EmbedState | { kind: 'notice'; notice: 'unreachable' };
type Bridge = ReturnType<typeof createBridge>;
type AppBoot = Extract<EmbedBoot, { page: 'app' }>;

const UNREACHABLE: View = { kind: 'notice', notice: 'unreachable' };
/** The page mode's starting height, and its least (SPEC 4.7); the loader draws the box at it before the app answers. */
const PAGE_START_HEIGHT = 480;

function lastControl(): HTMLElement | undefined {
  const controls = [...document.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled])')];
  return controls.filter((control) => control.getClientRects().length > 0).at(-1);
}

export function App({ boot }: { boot: EmbedBoot }) {
  const bridge = useRef(createBridge(boot.parentOrigin)).current;
  const root = useRef<HTMLDivElement>(null);

  // Any first message tells the loader the app is up (it shows "Could not reach the service" otherwise).
  useEffect(() => {
    bridge.send({ type: 'ready' });
    if (boot.page === 'refused') bridge.send({ type: 'refused' });
    // Escape closes the drawer also while focus is inside the app.
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && boot.mode === 'drawer') bridge.send({ type: 'escape' });
    };
    document.addEventListener('keydown', onKey);
    const stopListening = bridge.listen((message) => {
      if (message.type === 'focus-last') lastControl()?.focus();
    });
    return () => {
      document.removeEventListener('keydown', onKey);
      stopListening();
    };
  }, []);

  // Page mode: the iframe grows with the content and never goes below the 480 px it starts at
  // (SPEC 4.7), so a short screen does not shift the host page. The app reports the height it
  // wants, so every loader already published behaves so.
  useEffect(() => {
    const element = root.current;
    if (!element || typeof ResizeObserver !== 'function') return;
    let last = 0;
    const observer = new ResizeObserver(() => {
      const height = Math.max(PAGE_START_HEIGHT, Math.ceil(element.getBoundingClientRect().height));
      if (height !== last) {
        last = height;
        bridge.send({ type: 'height', height });
      }
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  return (
    <div class="shell" ref={root}>
      {boot.page === 'app' ? (
        <Onboarding boot={boot} bridge={bridge} />
      ) : boot.page === 'refused' ? (
        <Screen id="refused" title="Brand partnerships could not load">
          <p>This site is not approved to show the plugin. The platform can ask the service's support team to approve it.</p>
        </Screen>
      ) : (
        // Nothing about the store is on this page; trying again reloads it, so the service checks the host again.
        <Body
          view={{ kind: 'notice', notice: boot.notice }}
          busy={false}
          error={null}
          canAct={false}
          onRetry={() => location.reload()}
          onOpenedElsewhere={() => {}}
          onConsent={() => {}}
          onTurnBackOn={() => {}}
        />
      )}
    </div>
  );
}

/**
 * The screens that need the store token: turning cross-promotion on, or back on, and the live
 * screen, whose store's billing (held commissions, an approval waiting) only the token reads.
 */
function needsStoreToken(state: View): boolean {
  return state.kind === 'stage' ? state.stage === 'consent' || state.stage === 'live' : state.notice === 'turned_off';
}

/** The stages and messages of one store, on an approved host: the only page that reads a store's state. */
function Onboarding({ boot, bridge }: { boot: AppBoot; bridge: Bridge }) {
  const [view, setView] = useState<View>(boot.state ?? UNREACHABLE);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const lastStage = useRef<string | null>(null);
  const [waitingElsewhere, setWaitingElsewhere] = useState(false);
  // The store-bound token, in memory only: once the store's owner confirmed at the commerce platform
  // a link this page opened, the page's secret is traded for it. A reload starts without one.
  const token = useRef<string | null>(null);
  const [canAct, setCanAct] = useState(false);
  const openedLink = useRef(false);
  // Read with the store token only: the state anyone can ask for holds no money and no approval link.
  const [capRaise, setCapRaise] = useState<CapRaiseView | null>(null);

  /** The token ran out (or was refused): the merchant confirms again before acting or seeing billing. */
  const dropToken = () => {
    token.current = null;
    setCanAct(false);
    setCapRaise(null);
  };

  const readBilling = async () => {
    const storeToken = token.current;
    if (storeToken === null) return;
    try {
      setCapRaise((await fetchBilling(boot.platformId, boot.domain, storeToken)).capRaise);
    } catch (error) {
      if (error instanceof ServiceError && error.status === 401) dropToken();
      else throw error;
    }
  };

  // One trade at a time: coming back fires focus and visibilitychange together, and the confirmation
  // is spent by the first trade, so a second one overlapping it is refused and must not undo it.
  const trading = useRef<Promise<string | null> | null>(null);

  const refresh = useCallback(async () => {
    try {
      const current = await fetchState(boot.platformId, boot.domain, boot.proof.challenge);
      setView(current);
      // Traded only where a token is used: before consent the owner has not confirmed yet, and a
      // refused trade shows as a failed request in the host page's console.
      if (token.current === null && openedLink.current && needsStoreToken(current)) {
        trading.current ??= exchangeSecret(boot.platformId, boot.domain, boot.proof.secret).finally(() => {
          trading.current = null;
        });
        const traded = await trading.current;
        if (traded !== null) token.current = traded;
        setCanAct(token.current !== null);
      }
      await readBilling();
    } catch {
      setView(UNREACHABLE);
    }
  }, [boot.platformId, boot.domain]);

  // The stage goes to the host at load and on every change; messages of SPEC 6.3 send nothing.
  useEffect(() => {
    if (view.kind === 'stage' && view.stage !== lastStage.current) {
      lastStage.current = view.stage;
      bridge.send({ type: 'stage', stage: view.stage });
    }
  }, [view]);

  // Setup runs in the background: poll until it is done.
  useEffect(() => {
    if (view.kind !== 'stage' || (view.stage !== 'setting_up' && view.stage !== 'delayed')) return;
    const timer = setTimeout(refresh, view.pollAfterMs);
    return () => clearTimeout(timer);
  }, [view, refresh]);

  // While the merchant works in the commerce platform's tab, look again now and then as well:
  // some browsers keep a page "visible" while another tab has focus. The install is looked for
  // whether or not this page's link was followed: a store installs from its platform's own pages
  // too (Shopify's App Store listing, its admin), and the plugin moves on to the plan by itself.
  useEffect(() => {
    const installing = view.kind === 'stage' ? view.stage === 'install' : view.notice === 'not_installed';
    if (!waitingElsewhere && !installing) return;
    const awaiting = installing || (!canAct && needsStoreToken(view)) || (view.kind === 'stage' && view.stage === 'plan');
    if (!awaiting) {
      setWaitingElsewhere(false);
      return;
    }
    const timer = setInterval(refresh, boot.recheckMs);
    return () => clearInterval(timer);
  }, [waitingElsewhere, view, canAct, refresh]);

  // Back from a commerce-platform tab, or the drawer opened again: check the store again.
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === 'visible') void refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    const stopListening = bridge.listen((message) => {
      if (message.type === 'shown') void refresh();
    });
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
      stopListening();
    };
  }, [refresh]);

  const openedElsewhere = () => {
    openedLink.current = true;
    setWaitingElsewhere(true);
  };

  const act = async (action: (storeToken: string) => Promise<EmbedState>) => {
    const storeToken = token.current;
    if (storeToken === null) return;
    setBusy(true);
    setActionError(null);
    try {
      setView(await action(storeToken));
      await readBilling();
    } catch (error) {
      if (error instanceof ServiceError && error.status === 0) setView(UNREACHABLE);
      else if (error instanceof ServiceError && error.status === 401) {
        dropToken();
        setActionError('Your confirmation at your store has run out. Confirm again, then turn it on.');
      } else setActionError(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Body
        view={view}
        busy={busy}
        error={actionError}
        canAct={canAct}
        onRetry={refresh}
        onOpenedElsewhere={openedElsewhere}
        onConsent={(percent) => act((storeToken) => turnOnCrossPromotion(boot.platformId, boot.domain, percent, storeToken))}
        onTurnBackOn={() => act((storeToken) => turnBackOn(boot.platformId, boot.domain, storeToken))}
      />
      {capRaise && <CapRaise raise={capRaise} />}
      {view.kind === 'stage' && view.stage === 'live' && !canAct && <BillingConfirmFirst link={view.confirm} onOpened={openedElsewhere} />}
    </>
  );
}

/**
 * The commerce platform waits for the store's staff to approve a higher capped amount: what is held
 * until then, and the platform's own page to approve it (in a new tab; this page looks again on return).
 */
function CapRaise({ raise }: { raise: CapRaiseView }) {
  const held = raise.held.map((amount) => currencyAmount(amount.amountMinor, amount.currency)).join(' and ');
  return (
    <section class="cap-raise" aria-labelledby="cap-raise-title">
      <h2 id="cap-raise-title">Approve a higher capped amount at {raise.platformName}</h2>
      <p>
        {held
          ? `Commissions of ${held} are held, not charged: they are over your plan's capped amount.`
          : "Your plan's capped amount is nearly used: commissions over it would be held, not charged."}{' '}
        {raise.platformName} asks you to approve a capped amount of {currencyAmount(raise.cappedMinor, raise.currency)} every 30 days. Once
        you approve it, the held commissions are charged and this message goes away.
      </p>
      <a class="button" href={raise.confirmationUrl} target="_blank" rel="noopener">
        Approve the higher cap at {raise.platformName} <span class="hint">(opens a new tab)</span>
      </a>
    </section>
  );
}

/**
 * The live screen, without the store token: what the store's commerce platform holds or waits for
 * (commissions over the plan's cap, a higher cap to approve) is shown once the owner confirms.
 */
function BillingConfirmFirst({ link, onOpened }: { link: ActionLink | null; onOpened: () => void }) {
  return (
    <section class="billing" aria-labelledby="billing-title">
      <h2 id="billing-title">Your billing</h2>
      <p>
        To see commissions held over your plan's capped amount, and anything your commerce platform asks you to approve, confirm at your
        commerce platform, signed in as the store's owner, that you manage this store. Then come back here.
      </p>
      {link && <Action link={link} label="Confirm at your store" onOpened={onOpened} />}
    </section>
  );
}

interface BodyProps {
  view: View;
  busy: boolean;
  error: string | null;
  /** The app holds a store token: the store's owner confirmed at the commerce platform. */
  canAct: boolean;
  onRetry: () => void;
  onOpenedElsewhere: () => void;
  onConsent: (percent: number | undefined) => void;
  onTurnBackOn: () => void;
}

function Body({ view, busy, error, canAct, onRetry, onOpenedElsewhere, onConsent, onTurnBackOn }: BodyProps) {
  if (view.kind === 'notice') {
    switch (view.notice) {
      case 'unavailable':
        return (
          <Screen id="unavailable" title="Brand partnerships are not available here yet">
            <p>This platform is not set up to show cross-promotion offers yet. Check back soon.</p>
          </Screen>
        );
      case 'not_eligible':
        return (
          <Screen id="not_eligible" title="Store is not eligible yet">
            <p>Cross-promotion opens up once your store has a few orders and products to show.</p>
            <ul class="reasons">
              {view.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
            <button type="button" class="secondary" onClick={onRetry}>
              Check again
            </button>
          </Screen>
        );
      case 'not_installed':
        return (
          <Screen id="not_installed" title="App is not installed">
            <p>You uninstalled the app, so your offer is no longer shown. Reinstall it to turn cross-promotion back on.</p>
            <Action link={view.reinstall} label="Reinstall the app" onOpened={onOpenedElsewhere} />
          </Screen>
        );
      case 'turned_off':
        return (
          <Screen id="turned_off" title="Cross-promotion is turned off">
            <p>You closed your campaign, so partner brands' shoppers don't see your offer. You can turn it back on at any time.</p>
            {canAct ? (
              <button type="button" onClick={onTurnBackOn} disabled={busy}>
                {busy ? 'Turning on…' : 'Turn cross-promotion back on'}
              </button>
            ) : (
              <ConfirmFirst link={view.confirm} onOpened={onOpenedElsewhere} />
            )}
            {error && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
          </Screen>
        );
      case 'no_commerce_platform':
        return (
          <Screen id="no_commerce_platform" title="No commerce platform is connected yet">
            <p>
              Cross-promotion starts with installing the app in your store's commerce platform, and this service has no commerce platform
              connected yet. Nothing to do for now: check back soon.
            </p>
          </Screen>
        );
      case 'unreachable':
        return (
          <Screen id="unreachable" title="Could not reach the service">
            <p>Check your connection, then try again.</p>
            <button type="button" onClick={onRetry}>
              Try again
            </button>
          </Screen>
        );
    }
  }
  switch (view.stage) {
    case 'install':
      return (
        <Screen id="install" title="Grow with brands your customers will love">
          <p>
            Cross-promotion shows your offer to shoppers of partner brands right after they check out, and their offers to yours. New
            customers come to you with a discount you choose.
          </p>
          <ul class="points">
            <li>No monthly fees: a small share of the first order from each new customer a partner refers.</li>
            <li>Partners are matched to your store; you stay in control of every campaign.</li>
          </ul>
          <Action link={view.install} label="Install the app" onOpened={onOpenedElsewhere} />
        </Screen>
      );
    case 'plan':
      return (
        <Screen id="plan" title="Approve the plan">
          <p>One step left before setup: approve the app's plan in your commerce platform.</p>
          <dl class="plan">
            <dt>Monthly fee</dt>
            <dd>None, no monthly fees</dd>
            <dt>When you pay</dt>
            <dd>A small share of the first order from each new customer a partner refers</dd>
          </dl>
          <Action link={view.approve} label="Approve plan" onOpened={onOpenedElsewhere} />
        </Screen>
      );
    case 'setting_up':
      return (
        <Screen id="setting_up" title="Setting up your store">
          <p>This usually takes a minute or two. You can leave this page: setup keeps going.</p>
          <Progress steps={view.steps} />
        </Screen>
      );
    case 'delayed':
      return (
        <Screen id="delayed" title="Setup is taking longer than usual">
          <p>We are still working on it and keep retrying in the background. You can leave this page and come back later.</p>
          <Progress steps={view.steps} />
        </Screen>
      );
    case 'consent':
      return <Consent view={view} busy={busy} error={error} canAct={canAct} onConsent={onConsent} onOpenedElsewhere={onOpenedElsewhere} />;
    case 'live':
      return (
        <Screen id="live" title="Cross-promotion is live">
          <p>Your offer is now shown to shoppers of partner brands after they check out.</p>
          <div class="offer">
            {view.offer.imageUrl && <img src={view.offer.imageUrl} alt="" width={72} height={72} />}
            <div>
              <p class="offer-title">{view.offer.title}</p>
              {view.offer.subtitle && <p class="muted">{view.offer.subtitle}</p>}
              {view.offer.discountCode && (
                <p class="code">
                  Code <code>{view.offer.discountCode}</code>
                  {view.offer.discountPercent ? `, ${view.offer.discountPercent}% off, once per customer` : ''}
                </p>
              )}
            </div>
          </div>
          <a class="button" href={view.manageUrl} target="_blank" rel="noopener">
            Manage partnerships and campaigns
          </a>
        </Screen>
      );
  }
}

function Screen({ id, title, children }: { id: string; title: string; children: preact.ComponentChildren }) {
  return (
    <section class="screen" data-screen={id} aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>{title}</h1>
      {children}
    </section>
  );
}

function Progress({ steps }: { steps: ProgressStep[] }) {
  return (
    <ol class="progress">
      {steps.map((step) => (
        <li key={step.key} class={step.status} aria-current={step.status === 'active' ? 'step' : undefined}>
          <span class="dot" aria-hidden="true" />
          <span>{step.label}</span>
          <span class="visually-hidden">
            {step.status === 'done' ? ' (done)' : step.status === 'active' ? ' (in progress)' : ' (to do)'}
          </span>
        </li>
      ))}
    </ol>
  );
}

/**
 * A commerce-platform action. With the return flow it navigates this tab; otherwise it opens a
 * new tab on the click (never by itself) and says so when the browser blocks it.
 */
function Action({ link, label, onOpened }: { link: ActionLink; label: string; onOpened: () => void }) {
  const [state, setState] = useState<'idle' | 'opened' | 'blocked'>('idle');
  if (link.sameTab) {
    return (
      <a class="button" href={link.url} target="_top">
        {label}
      </a>
    );
  }
  const open = (event: MouseEvent) => {
    event.preventDefault();
    const opened = window.open(link.url, '_blank');
    if (!opened) {
      setState('blocked');
      return;
    }
    try {
      opened.opener = null;
    } catch {
      // Cross-origin by then: nothing to cut.
    }
    setState('opened');
    onOpened();
  };
  return (
    <div>
      <a class="button" href={link.url} target="_blank" rel="noopener" onClick={open}>
        {label} <span class="hint">(opens a new tab)</span>
      </a>
      {state === 'opened' && <p class="muted">Finish in the new tab, then come back here: this page checks again when you return.</p>}
      {state === 'blocked' && (
        <p class="error" role="alert">
          Your browser blocked the new tab. Allow pop-ups for this site, or{' '}
          <a href={link.url} target="_blank" rel="noopener">
            open it here
          </a>
          .
        </p>
      )}
    </div>
  );
}

/**
 * What the merchant does before acting for the store on a page that holds no token (reloaded, or
 * back through the same tab): confirm at the commerce platform, in a new tab, so this page is
 * still here to trade its secret when they come back.
 */
function ConfirmFirst({ link, onOpened }: { link: ActionLink | null; onOpened: () => void }) {
  return (
    <div>
      <p>First confirm at your commerce platform, signed in as the store's owner, that you manage this store. Then come back here.</p>
      {link && <Action link={link} label="Confirm at your store" onOpened={onOpened} />}
    </div>
  );
}

function Consent({
  view,
  busy,
  error,
  canAct,
  onConsent,
  onOpenedElsewhere,
}: {
  view: Extract<EmbedState, { stage: 'consent' }>;
  busy: boolean;
  error: string | null;
  canAct: boolean;
  onConsent: (percent: number | undefined) => void;
  onOpenedElsewhere: () => void;
}) {
  const [percent, setPercent] = useState<number>(15);
  const existing = view.existingDiscountPercent;
  const shown = existing ?? percent;
  return (
    <Screen id="consent" title="Preview your offer">
      <OfferCard preview={view.preview} percent={shown} />
      {existing !== null ? (
        <p class="existing">Your store already gives new customers {existing}% off; partners' shoppers get the same.</p>
      ) : (
        <fieldset class="choices">
          <legend>Discount for new customers</legend>
          {view.choices.map((choice) => (
            <label key={choice} class={choice === percent ? 'choice selected' : 'choice'}>
              <input type="radio" name="discount" value={choice} checked={choice === percent} onChange={() => setPercent(choice)} />
              {choice}%
            </label>
          ))}
        </fieldset>
      )}
      {canAct ? (
        <button type="button" onClick={() => onConsent(existing ?? percent)} disabled={busy}>
          {busy ? 'Turning on…' : 'Turn on cross-promotions'}
        </button>
      ) : (
        <ConfirmFirst link={view.confirm} onOpened={onOpenedElsewhere} />
      )}
      <p class="fine">
        By turning on cross-promotions you accept the{' '}
        <a href={view.termsUrl} target="_blank" rel="noopener">
          terms
        </a>{' '}
        and the{' '}
        <a href={view.privacyUrl} target="_blank" rel="noopener">
          privacy policy
        </a>
        . One discount code is created in your store, usable once per customer.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </Screen>
  );
}

function OfferCard({ preview, percent }: { preview: OfferPreview; percent: number }) {
  return (
    <div class="preview">
      <div class="brand">
        {preview.logoImageUrl && (
          <img class="logo" src={preview.logoImageUrl} alt={`${preview.businessName} logo`} width={48} height={48} />
        )}
        <div>
          <p class="brand-name">{preview.businessName}</p>
          {preview.tagline && <p class="muted">{preview.tagline}</p>}
        </div>
        <span class="badge">{percent}% off first order</span>
      </div>
      {preview.bestSellers.length > 0 && (
        <ul class="products" aria-label="Best sellers">
          {preview.bestSellers.slice(0, 3).map((product) => (
            <li key={product.title}>
              {product.imageUrl ? <img src={product.imageUrl} alt={product.title} width={96} height={96} /> : <span class="noimage" />}
              <span class="product-title">{product.title}</span>
              <span class="muted">{product.price}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
