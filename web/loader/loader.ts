import type { EmbedPluginHandle, EmbedPluginOptions, EmbedPluginStatic, EmbedStage } from './embed-plugin';
import { MESSAGE_CHANNEL, STAGES, type EmbedToLoader, type LoaderToEmbed } from '../../src/embed/embed-contract';
import { isPlatformId, storeDomain } from './store-domain';

const VERSION = '2.0.0';
const RETURN_PARAM = 'svc_connect';
const PAGE_START_HEIGHT = 480;
/** With no word from the embed app by then, the service is taken to be unreachable (a late answer still shows the app). */
const MOUNT_TIMEOUT_MS = 10_000;

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
.frame[hidden]{display:none}
.page .frame{height:${PAGE_START_HEIGHT}px;transition:height .15s ease}
.message{font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#fff;border:1px solid #d9dee3;border-radius:12px;padding:20px 22px}
.message strong{display:block;font-size:15px;margin-bottom:4px}
.message span{display:block}
.retry{margin-top:12px;font:600 14px/1 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#fff;background:#1d4ed8;border:0;border-radius:8px;padding:10px 14px;min-height:40px;cursor:pointer}
.retry:hover{background:#1e40af}
.retry:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.panel .message{margin:16px}
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

function messageBox(title: string, detail: string): HTMLElement {
  const box = element('div', 'message');
  box.setAttribute('role', 'alert');
  box.append(element('strong', undefined, title), element('span', undefined, detail));
  return box;
}

function couldNotLoad(detail: string): HTMLElement {
  return messageBox('Brand partnerships could not load', detail);
}

/** SPEC 6.3 "Could not reach the service", for when the embed app never answered. */
function couldNotReach(retry: () => void): HTMLElement {
  const box = messageBox('Could not reach the service', 'Check your connection, then try again.');
  const button = element('button', 'retry', 'Try again');
  button.type = 'button';
  button.addEventListener('click', retry);
  box.appendChild(button);
  return box;
}

/** The host page's origin and those of the pages framing it, where the browser tells (the service refuses if any is not approved). */
function surroundingOrigins(): string[] {
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return [location.origin, ...(ancestors ? Array.from(ancestors) : [])];
}

const mounted = new WeakMap<Element, Plugin>();

class Plugin {
  private readonly host: HTMLElement;
  private readonly root: ShadowRoot;
  private frameUrl = '';
  /** Where the iframe lives: the page-mode box or the drawer's panel. */
  private slot: HTMLElement | undefined;
  private iframe: HTMLIFrameElement | undefined;
  /** "Could not reach the service", shown in the slot while the app has not answered. */
  private notice: HTMLElement | undefined;
  private mountTimer: ReturnType<typeof setTimeout> | undefined;
  private answered = false;
  private layer: HTMLElement | undefined;
  private closeButton: HTMLButtonElement | undefined;
  /** Focus leaving the app forwards (Tab past its last control) lands here and goes back to Close. */
  private focusEnd: HTMLElement | undefined;
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
    const query = new URLSearchParams({ platformId, domain, mode: this.mode, ancestors: surroundingOrigins().join(' ') });
    this.frameUrl = `${SERVICE_ORIGIN}/plugin/v2/embed?${query.toString()}`;
    this.listen(window, 'message', (event) => this.receive(event as MessageEvent));

    if (this.mode === 'page') {
      this.slot = element('div', 'page');
      this.root.appendChild(this.slot);
      this.loadFrame();
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
    const focusEnd = element('span');
    focusEnd.tabIndex = 0;
    focusEnd.addEventListener('focus', () => closeButton.focus());
    panel.append(bar, focusEnd);
    layer.append(backdrop, panel);
    this.root.appendChild(layer);
    this.layer = layer;
    this.slot = panel;
    this.closeButton = closeButton;
    this.focusEnd = focusEnd;
    this.listen(document, 'keydown', (event) => this.onKey(event as KeyboardEvent));
    this.loadFrame();
    if (returnedFromConnect) this.open();
  }

  /** (Re)loads the embed app and waits for its first message. */
  private loadFrame(): void {
    if (!this.slot) return;
    this.iframe?.remove();
    this.notice?.remove();
    this.notice = undefined;
    const iframe = element('iframe', 'frame');
    iframe.src = this.frameUrl;
    iframe.title = 'Brand partnerships';
    // Popups (install, approve plan) and same-tab returns need a click inside the app; nothing else is granted.
    iframe.setAttribute(
      'sandbox',
      'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation',
    );
    // The service checks this page's origin, which the browser sends as the Referer: the origin, never the path.
    iframe.setAttribute('referrerpolicy', 'origin');
    this.slot.insertBefore(iframe, this.focusEnd ?? null);
    this.iframe = iframe;
    this.answered = false;
    clearTimeout(this.mountTimer);
    this.mountTimer = setTimeout(() => this.showUnreachable(), MOUNT_TIMEOUT_MS);
  }

  private showUnreachable(): void {
    if (this.answered || this.destroyed || !this.iframe || !this.slot) return;
    // The iframe keeps loading behind the message: if the app answers late, it replaces the message.
    this.iframe.hidden = true;
    this.notice = couldNotReach(() => this.loadFrame());
    this.slot.insertBefore(this.notice, this.iframe);
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
    if (!this.answered) {
      this.answered = true;
      clearTimeout(this.mountTimer);
      this.notice?.remove();
      this.notice = undefined;
      this.iframe.hidden = false;
    }
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
        this.refuse();
        break;
      case 'escape':
        if (this.isOpen) this.close();
        break;
    }
  }

  /** The host is not approved: the message takes the plugin's place, visible in either mode. */
  private refuse(): void {
    if (this.isOpen) {
      this.isOpen = false;
      if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus();
    }
    (this.layer ?? this.slot)?.remove();
    this.layer = undefined;
    this.slot = undefined;
    this.iframe = undefined;
    this.root.appendChild(couldNotLoad('This site is not approved to show the plugin.'));
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.isOpen) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
    } else if (event.key === 'Tab' && event.shiftKey && this.root.activeElement === this.closeButton) {
      // Backwards from Close, the dialog's first stop, wraps to its last: the app's last control (or the retry button).
      event.preventDefault();
      const retry = this.notice?.querySelector('button');
      if (retry) {
        retry.focus();
      } else if (this.iframe) {
        this.iframe.focus();
        this.post({ channel: MESSAGE_CHANNEL, type: 'focus-last' });
      }
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
    clearTimeout(this.mountTimer);
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
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
    throw new TypeError('EmbedPlugin.init: onEvent must be a function');
  if (options.onClose !== undefined && typeof options.onClose !== 'function')
    throw new TypeError('EmbedPlugin.init: onClose must be a function');

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
