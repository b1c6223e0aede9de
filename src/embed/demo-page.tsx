import type { VNode } from 'preact';
import { JsonScript, PageShell } from '../http/page.js';

export interface DemoPageProps {
  /** The demo platform's id, or none when the demo fixtures are not loaded. */
  platformId: string | undefined;
  /** Whether the platform id was picked by hand (?platformId=…), so the page's links keep it. */
  pickedPlatform: boolean;
  domain: string;
  /** A store domain typed into the form and refused, with why: the merchant stays the one before. */
  refusal?: { typed: string; reason: string };
  mode: 'page' | 'drawer';
  presets: Array<{ domain: string; what: string }>;
  serviceUrl: string;
  loader: { url: string; integrity: string } | undefined;
  assets: { script: string; style: string };
}

/** The pretend platform's top bar: its two pages, and who is signed in. */
function TopBar({ current, merchant }: { current: 'plugin' | 'orders'; merchant?: string }): VNode {
  return (
    <header class="top">
      <strong>Checkout Co</strong>
      <nav aria-label="Checkout Co">
        <a href="/" aria-current={current === 'plugin' ? 'page' : undefined}>
          Brand partnerships
        </a>
        <a href="/order-confirmation" aria-current={current === 'orders' ? 'page' : undefined}>
          Order page
        </a>
      </nav>
      {merchant && <span class="who">Merchant: {merchant}</span>}
    </header>
  );
}

/** The pretend platform's plugin page: demo controls beside the plugin, as an integrator would place it. */
export function demoPage({ platformId, pickedPlatform, domain, refusal, mode, presets, serviceUrl, loader, assets }: DemoPageProps): VNode {
  const keptPlatform: Record<string, string> = pickedPlatform && platformId ? { platformId } : {};
  return (
    <PageShell title="Checkout Co · Brand partnerships" stylesheet={assets.style}>
      <TopBar current="plugin" merchant={domain} />
      <div class="layout">
        <aside aria-label="Demo controls">
          <form method="get" action="/" class="switch">
            {pickedPlatform && platformId && <input type="hidden" name="platformId" value={platformId} />}
            <label for="domain">Store domain</label>
            <input
              id="domain"
              name="domain"
              value={refusal?.typed ?? domain}
              aria-invalid={refusal ? 'true' : undefined}
              aria-describedby={refusal ? 'domain-error' : undefined}
            />
            {refusal && (
              <p id="domain-error" class="error" role="alert">
                “{refusal.typed}” was not used: {refusal.reason}. The merchant is still {domain}.
              </p>
            )}
            <fieldset>
              <legend>Mode</legend>
              <label>
                <input type="radio" name="mode" value="page" checked={mode === 'page'} /> Page
              </label>
              <label>
                <input type="radio" name="mode" value="drawer" checked={mode === 'drawer'} /> Drawer
              </label>
            </fieldset>
            <button type="submit">Show</button>
          </form>
          <h2>Try these merchants</h2>
          <ul class="presets">
            {presets.map((preset) => (
              <li>
                <a href={`/?${new URLSearchParams({ ...keptPlatform, domain: preset.domain, mode }).toString()}`}>{preset.domain}</a>
                <span>{preset.what}</span>
              </li>
            ))}
          </ul>
          <p>
            <a href={`${serviceUrl}/sandbox/stores/${encodeURIComponent(domain)}`} target="_blank" rel="noopener">
              Open this store's admin in the sandbox commerce platform
            </a>
          </p>
          <h2 id="event-log-title">Event log</h2>
          <ol id="event-log" aria-live="polite" aria-labelledby="event-log-title" tabindex={0}></ol>
          <button type="button" id="clear-log" class="secondary">
            Clear log
          </button>
        </aside>
        {/* Named, so it stays a landmark of its own beside the plugin frame's main. */}
        <main aria-labelledby="page-title">
          <h1 id="page-title">Brand partnerships</h1>
          {!platformId ? (
            <p class="warning">The demo platform "Checkout Co" is missing: load the demo fixtures, then reload.</p>
          ) : mode === 'drawer' ? (
            <>
              <p>Drawer mode: the plugin slides in from the right.</p>
              <button type="button" id="open-drawer">
                Open brand partnerships
              </button>
              <div id="plugin"></div>
            </>
          ) : (
            <div id="plugin"></div>
          )}
        </main>
      </div>
      {platformId && loader && (
        <>
          <script src={loader.url} integrity={loader.integrity} crossorigin="anonymous"></script>
          <JsonScript id="demo-config" value={{ platformId, domain, mode }} />
          <script src={assets.script}></script>
        </>
      )}
    </PageShell>
  );
}

/** One offer as the offers endpoint returns it (SPEC 2.1). */
export interface OfferCard {
  imageUrl: string;
  referralUrl: string;
  title: string;
  subtitle?: string;
}

export interface OrderPageProps {
  /** The brand whose shopper just ordered; none when the platform has no brand's key. */
  brandName: string | undefined;
  /** The offers the service returned, or why there are none to show. */
  offers: OfferCard[] | string | undefined;
  sandboxStorefronts: boolean;
  assets: { style: string };
}

/**
 * The platform's order confirmation page: the partner offers the service returns for the brand's
 * shopper, each linked exactly as returned (SPEC 2.1), so a click is counted and leads to the
 * partner's store with its discount applied.
 */
export function orderPage({ brandName, offers, sandboxStorefronts, assets }: OrderPageProps): VNode {
  return (
    <PageShell title="Checkout Co · Order confirmed" stylesheet={assets.style}>
      <TopBar current="orders" />
      <main class="order" aria-labelledby="page-title">
        <h1 id="page-title">Thank you, your order is confirmed</h1>
        {brandName ? (
          <p>
            This is the page a shopper of <strong>{brandName}</strong> sees after checkout on Checkout Co. Below it, the partner offers the
            service returns for the brand (<code>GET /v1/campaigns/offers?type=post-purchase</code>): each one shown counts as a view for
            Checkout Co, and each click as a click.
          </p>
        ) : (
          <p class="warning">No brand has given Checkout Co its key: load the demo data to see offers here.</p>
        )}
        {!sandboxStorefronts && (
          <p class="note">
            The offers lead to the partners' own stores. Start the service with <code>SANDBOX_STOREFRONTS=true</code> to follow them to the
            partners' sandbox storefronts and order there.
          </p>
        )}
        {typeof offers === 'string' && <p class="warning">The offers could not be loaded: {offers}.</p>}
        {Array.isArray(offers) && (
          <section aria-labelledby="offers-title">
            <h2 id="offers-title">Offers from our partners</h2>
            {offers.length === 0 ? (
              <p>No partner offers right now.</p>
            ) : (
              <ul class="offers">
                {offers.map((offer) => (
                  <li class="offer">
                    <img src={offer.imageUrl} alt="" width={300} height={200} />
                    <div>
                      <h3>{offer.title}</h3>
                      {offer.subtitle && <p>{offer.subtitle}</p>}
                      <a class="button" href={offer.referralUrl} aria-label={`Shop the offer: ${offer.title}`}>
                        Shop the offer
                      </a>
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
      </main>
    </PageShell>
  );
}
