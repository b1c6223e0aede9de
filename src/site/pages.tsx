import type { VNode } from 'preact';
import type { Config } from '../config.js';
import { PageShell } from '../http/page.js';
import { API_REFERENCE_PATH } from '../http/reference-page.js';

interface LandingLink {
  href: string;
  label: string;
  what: string;
}

/** Where the demo host page answers (src/embed/demo-host.ts starts it on DEMO_PORT), or null where it does not run. */
export function demoHostUrl(config: Pick<Config, 'baseUrl' | 'serviceEnv' | 'plugin'>): string | null {
  if (config.plugin.demoPort === 0 || config.serviceEnv === 'prod') return null;
  const url = new URL(config.baseUrl);
  url.port = String(config.plugin.demoPort);
  return `${url.origin}/`;
}

/** The links a newcomer needs: the dashboard, the API reference, the demo platform page (where it runs) and health. */
export function landingLinks(config: Pick<Config, 'baseUrl' | 'serviceEnv' | 'plugin'>): LandingLink[] {
  const demo = demoHostUrl(config);
  return [
    {
      href: '/dashboard',
      label: 'Brand dashboard',
      what: 'Sign up or sign in as brand staff: partnerships, campaigns, offer, API keys, performance.',
    },
    {
      href: API_REFERENCE_PATH,
      label: 'API reference',
      what: 'Every public endpoint with examples; the OpenAPI document is at /v1/openapi.json.',
    },
    ...(demo
      ? [
          {
            href: demo,
            label: 'Demo platform page',
            what: 'A pretend tech platform embedding the plugin: walk a store through onboarding.',
          },
        ]
      : []),
    { href: '/healthz', label: 'Health', what: 'Liveness (/healthz); readiness with the database is at /readyz.' },
  ];
}

export function landingPage(stylesheet: string, links: LandingLink[]): VNode {
  return (
    <PageShell title="Partner collaboration service" stylesheet={stylesheet}>
      <header class="topbar">
        <a href="/">Partner collaboration service</a>
      </header>
      <main class="sheet">
        <h1>Brands promoting each other</h1>
        <p class="muted">
          Verified online-store brands show each other's offers to their shoppers; tech platforms display them and are credited with the
          views and orders they bring.
        </p>
        <ul class="landing-links">
          {links.map((link) => (
            <li key={link.href}>
              <a href={link.href}>{link.label}</a>
              <span class="muted">{link.what}</span>
            </li>
          ))}
        </ul>
      </main>
    </PageShell>
  );
}
