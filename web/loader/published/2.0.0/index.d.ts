/**
 * Type declarations of the embedded plugin loader, v2.0.0 (published beside the loader at
 * /plugin/v2.0.0/index.d.ts). The loader's source implements exactly these types.
 */

/** Stages of the merchant's onboarding, in order; `delayed` takes the place of `setting_up` when setup runs long. */
export type EmbedStage = 'install' | 'plan' | 'setting_up' | 'delayed' | 'consent' | 'live';

/** The one event of the plugin. It never carries personal information. */
export interface EmbedStageEvent {
  type: 'embed.stage';
  stage: EmbedStage;
}

export type EmbedEvent = EmbedStageEvent;

export interface EmbedPluginOptions {
  /** Where the plugin appears: an element, or a selector matching one. */
  container: Element | string;
  /** The platform id (UUID) issued by the service's support team. */
  platformId: string;
  /** The signed-in merchant's store domain; scheme, path and a leading www. are dropped. */
  domain: string;
  /** `page` (default) fills the container; `drawer` slides in from the right when opened. */
  mode?: 'page' | 'drawer';
  /** Called with `{ type: 'embed.stage', stage }` when the plugin loads and whenever the stage changes. */
  onEvent?: (event: EmbedEvent) => void;
  /** Called when the merchant closes the drawer (Close button, backdrop click or Escape) or `close()` is called. */
  onClose?: () => void;
}

export interface EmbedPluginHandle {
  /** Opens the drawer; does nothing in page mode. */
  open(): void;
  /** Closes the drawer and calls onClose. */
  close(): void;
  /** Removes the plugin and its listeners; does not call onClose. */
  destroy(): void;
}

export interface EmbedPluginStatic {
  readonly version: '2.0.0';
  /**
   * Mounts the plugin. Throws a TypeError when the container matches no element, when mode is
   * neither page nor drawer, or when onEvent or onClose is not a function. A bad platformId or
   * domain shows a could-not-load message inside the container instead.
   */
  init(options: EmbedPluginOptions): EmbedPluginHandle;
}

declare global {
  interface Window {
    EmbedPlugin: EmbedPluginStatic;
  }
  const EmbedPlugin: EmbedPluginStatic;
}
