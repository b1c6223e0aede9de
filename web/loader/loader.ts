import type { EmbedPluginHandle, EmbedPluginOptions, EmbedPluginStatic, EmbedStage } from './embed-plugin';
import { MESSAGE_CHANNEL, STAGES, type EmbedToLoader, type LoaderToEmbed } from '../../src/plugin/embed-state';
import { isPlatformId, storeDomain } from '../../src/plugin/store-domain';

const VERSION = '2.0.0';
const RETURN_PARAM = 'svc_connect';
const PAGE_START_HEIGHT = 480;

// The service is wherever this script was loaded from; the embed app lives on the same origin.
const script = document.currentScript as HTMLScriptElement | null;
const SERVICE_ORIGIN = new URL(script?.src || location.href).origin;

/**
 * Returning from the commerce platform (SPEC 4.7): the parameter is removed from the address bar
 * as soon as the loader runs, and remembered for this page so the drawer reopens on init, also
 * when a framework mounts twice (React StrictMode).
 */
let returnedFromConnect = false;
try {
  const url = new URL(location.href);
  if (url.searchParams.get(RETURN_PARAM) === 'return') {
    url.searchParams.delete(RETURN_PARAM);
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    returnedFromConnect = true;
  }
} catch {
  // An opaque or sandboxed host page cannot rewrite its address; the plugin works without it.
}

// Styles live in a shadow root (isolated from the host's CSS) and are adopted as a constructed
// stylesheet, which a host Content-Security-Policy without 'unsafe-inline' styles still allows.
const CSS = `
:host{display:block;all:initial;display:block}
.frame{display:block;width:100%;border:0;color-scheme:normal;background:transparent}
.page .frame{height:${PAGE_START_HEIGHT}px;transition:height .15s ease}
.message{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#fff;border:1px solid #d9dee3;border-radius:12px;padding:20px 22px}
.message strong{display:block;font-size:15px;margin-bottom:4px}
.layer{position:fixed;inset:0;z-index:2147483000;display:flex;justify-content:flex-end}
.layer[hidden]{display:none}
.backdrop{position:absolute;inset:0;background:rgba(15,23,42,.45);opacity:0;transition:opacity .2s ease}
.panel{position:relative;display:flex;flex-direction:column;width:min(520px,100%);max-width:520px;height:100%;background:#fff;box-shadow:-12px 0 32px rgba(15,23,42,.18);transform:translateX(100%);transition:transform .22s ease;outline:none}
.open .backdrop{opacity:1}
.open .panel{transform:none}
.bar{display:flex;align-items:center;justify-content:space-between;gap:12px;padding:12px 16px;border-bottom:1px solid #e4e7eb;font:600 15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933}
.close{font:500 14px/1 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f1f3f5;border:1px solid #d9dee3;border-radius:8px;padding:8px 12px;cursor:pointer}
.close:hover{background:#e4e7eb}
.close:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
.panel .frame{flex:1;height:auto;min-height:0}
@media (max-width:600px){.panel{width:100%;max-width:none}}
@media (prefers-reduced-motion:reduce){.panel,.backdrop,.page .frame{transition:none}}
`;

function applyStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.appendChild(style);
  }
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

function couldNotLoad(detail: string): HTMLElement {
  const box = element('div', 'message');
  box.setAttribute('role', 'alert');
  box.append(element('strong', undefined, 'Brand partnerships could not load'), element('span', undefined, detail));
  return box;
}

const mounted = new WeakMap<Element, Plugin>();

class Plugin {
  private readonly host: HTMLElement;
  private readonly root: ShadowRoot;
  private iframe: HTMLIFrameElement | undefined;
  private layer: HTMLElement | undefined;
  private panel: HTMLElement | undefined;
  private closeButton: HTMLButtonElement | undefined;
  private isOpen = false;
  private destroyed = false;
  private lastStage: EmbedStage | undefined;
  private returnFocus: Element | null = null;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    private readonly container: Element,
    private readonly options: EmbedPluginOptions,
    private readonly mode: 'page' | 'drawer',
  ) {
    this.host = element('div');
    this.host.setAttribute('data-embed-plugin', VERSION);
    this.root = this.host.attachShadow({ mode: 'open' });
    applyStyles(this.root);
    container.appendChild(this.host);

    const domain = storeDomain(options.domain);
    if (!isPlatformId(options.platformId)) {
      this.root.appendChild(couldNotLoad('The platform id is not valid. Ask your platform to check the plugin set-up.'));
      return;
    }
    if (!domain) {
      this.root.appendChild(couldNotLoad('The store domain is missing or not valid.'));
      return;
    }
    this.mount(options.platformId.trim().toLowerCase(), domain);
  }

  private mount(platformId: string, domain: string): void {
    const iframe = element('iframe', 'frame');
    const query = new URLSearchParams({ platformId, domain, origin: location.origin, mode: this.mode });
    iframe.src = `${SERVICE_ORIGIN}/plugin/v2/embed?${query.toString()}`;
    iframe.title = 'Brand partnerships';
    // Popups (install, approve plan) and same-tab returns need a click inside the app; nothing else is granted.
    iframe.setAttribute(
      'sandbox',
      'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation',
    );
    iframe.setAttribute('referrerpolicy', 'no-referrer');
    this.iframe = iframe;
    this.listen(window, 'message', (event) => this.receive(event as MessageEvent));

    if (this.mode === 'page') {
      const wrap = element('div', 'page');
      wrap.appendChild(iframe);
      this.root.appendChild(wrap);
      return;
    }

    const layer = element('div', 'layer');
    layer.hidden = true;
    const backdrop = element('div', 'backdrop');
    backdrop.addEventListener('click', () => this.close());
    const panel = element('div', 'panel');
    panel.setAttribute('role', 'dialog');
    panel.setAttribute('aria-modal', 'true');
    panel.setAttribute('aria-label', 'Brand partnerships');
    panel.tabIndex = -1;
    const bar = element('div', 'bar');
    const title = element('span', undefined, 'Brand partnerships');
    const closeButton = element('button', 'close', 'Close');
    closeButton.type = 'button';
    closeButton.setAttribute('aria-label', 'Close brand partnerships');
    closeButton.addEventListener('click', () => this.close());
    bar.append(title, closeButton);
    panel.append(bar, iframe);
    layer.append(backdrop, panel);
    this.root.appendChild(layer);
    this.layer = layer;
    this.panel = panel;
    this.closeButton = closeButton;
    this.listen(document, 'keydown', (event) => this.onKey(event as KeyboardEvent));
    if (returnedFromConnect) this.open();
  }

  private listen(target: EventTarget, type: string, listener: (event: Event) => void): void {
    target.addEventListener(type, listener);
    this.cleanups.push(() => target.removeEventListener(type, listener));
  }

  private receive(event: MessageEvent): void {
    // Only the app in our own iframe, from the service's exact origin, is listened to.
    if (event.origin !== SERVICE_ORIGIN || !this.iframe || event.source !== this.iframe.contentWindow) return;
    const data = event.data as EmbedToLoader | null;
    if (!data || typeof data !== 'object' || data.channel !== MESSAGE_CHANNEL) return;
    switch (data.type) {
      case 'stage':
        if ((STAGES as readonly string[]).includes(data.stage) && data.stage !== this.lastStage) {
          this.lastStage = data.stage;
          this.call(this.options.onEvent, { type: 'embed.stage', stage: data.stage });
        }
        break;
      case 'height':
        if (this.mode === 'page' && typeof data.height === 'number' && data.height > 0) {
          this.iframe.style.height = `${Math.ceil(Math.min(data.height, 20_000))}px`;
        }
        break;
      case 'refused':
        this.iframe.remove();
        this.iframe = undefined;
        if (this.layer) this.panel?.appendChild(couldNotLoad('This site is not approved to show the plugin.'));
        else this.root.appendChild(couldNotLoad('This site is not approved to show the plugin.'));
        break;
      case 'escape':
        if (this.isOpen) this.close();
        break;
    }
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.isOpen) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
    } else if (event.key === 'Tab' && this.closeButton && this.iframe) {
      // Keep focus in the dialog: from the host side the only stops are Close and the app.
      const active = this.root.activeElement;
      event.preventDefault();
      if (active === this.closeButton && !event.shiftKey) this.iframe.focus();
      else this.closeButton.focus();
    }
  }

  private call<T>(callback: ((value: T) => void) | (() => void) | undefined, value?: T): void {
    if (!callback) return;
    try {
      (callback as (value?: T) => void)(value);
    } catch (error) {
      // A failing host callback must not break the plugin; report it where the host will look.
      setTimeout(() => {
        throw error;
      });
    }
  }

  private post(message: LoaderToEmbed): void {
    this.iframe?.contentWindow?.postMessage(message, SERVICE_ORIGIN);
  }

  open(): void {
    if (this.destroyed || this.mode !== 'drawer' || this.isOpen || !this.layer) return;
    this.isOpen = true;
    this.returnFocus = document.activeElement;
    this.layer.hidden = false;
    // Reading layout makes the slide-in start from the hidden position.
    void this.layer.offsetWidth;
    this.layer.classList.add('open');
    this.closeButton?.focus();
    this.post({ channel: MESSAGE_CHANNEL, type: 'shown' });
  }

  close(): void {
    if (this.destroyed || this.mode !== 'drawer' || !this.isOpen || !this.layer) return;
    this.isOpen = false;
    returnedFromConnect = false;
    this.layer.classList.remove('open');
    this.layer.hidden = true;
    if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus();
    this.call(this.options.onClose);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.iframe = undefined;
    this.host.remove();
    if (mounted.get(this.container) === this) mounted.delete(this.container);
  }
}

function resolveContainer(container: unknown): Element {
  if (typeof container === 'string') {
    let found: Element | null;
    try {
      found = document.querySelector(container);
    } catch {
      throw new TypeError(`EmbedPlugin.init: container "${container}" is not a valid selector`);
    }
    if (!found) throw new TypeError(`EmbedPlugin.init: container "${container}" matches no element`);
    return found;
  }
  if (container instanceof Element) return container;
  throw new TypeError('EmbedPlugin.init: container must be an element or a selector string');
}

function init(options: EmbedPluginOptions): EmbedPluginHandle {
  if (!options || typeof options !== 'object') throw new TypeError('EmbedPlugin.init: options must be an object');
  const container = resolveContainer(options.container);
  const mode = options.mode === undefined ? 'page' : options.mode;
  if (mode !== 'page' && mode !== 'drawer') throw new TypeError('EmbedPlugin.init: mode must be "page" or "drawer"');
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new TypeError('EmbedPlugin.init: onEvent must be a function');
  if (options.onClose !== undefined && typeof options.onClose !== 'function') throw new TypeError('EmbedPlugin.init: onClose must be a function');

  // A second init on the same container replaces the first: exactly one plugin, whatever the framework does.
  mounted.get(container)?.destroy();
  const plugin = new Plugin(container, options, mode);
  mounted.set(container, plugin);
  return {
    open: () => plugin.open(),
    close: () => plugin.close(),
    destroy: () => plugin.destroy(),
  };
}

const api: EmbedPluginStatic = Object.freeze({ version: VERSION, init });
window.EmbedPlugin = api;
