import type { VNode } from 'preact';
import { JsonScript, PageShell } from '../http/page.js';

export interface DemoPageProps {
  /** The demo platform's id, or none when the demo fixtures are not loaded. */
  platformId: string | undefined;
  /** Whether the platform id was picked by hand (?platformId=…), so the page's links keep it. */
  pickedPlatform: boolean;
  domain: string;
  mode: 'page' | 'drawer';
  presets: Array<{ domain: string; what: string }>;
  serviceUrl: string;
  loader: { url: string; integrity: string } | undefined;
  assets: { script: string; style: string };
}

/** The pretend platform's plugin page: demo controls beside the plugin, as an integrator would place it. */
export function demoPage({ platformId, pickedPlatform, domain, mode, presets, serviceUrl, loader, assets }: DemoPageProps): VNode {
  const keptPlatform: Record<string, string> = pickedPlatform && platformId ? { platformId } : {};
  return (
    <PageShell title="Checkout Co · Brand partnerships" stylesheet={assets.style}>
      <header class="top">
        <strong>Checkout Co</strong>
        <nav aria-label="Checkout Co">
          <a href="/">Dashboard</a>
          <span>Orders</span>
          <span>Apps</span>
        </nav>
        <span class="who">Merchant: {domain}</span>
      </header>
      <div class="layout">
        <aside aria-label="Demo controls">
          <form method="get" action="/" class="switch">
            {pickedPlatform && platformId && <input type="hidden" name="platformId" value={platformId} />}
            <label for="domain">Store domain</label>
            <input id="domain" name="domain" value={domain} />
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
        <main>
          <h1>Brand partnerships</h1>
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
