/**
 * What the embed app is told about a store: either a stage of SPEC 3.4 with what its screen
 * (SPEC 6.2) needs, or one of the messages of SPEC 6.3 shown instead of a stage. Shared by the
 * service and the browser bundle, so it imports nothing.
 */
export const STAGES = ['install', 'plan', 'setting_up', 'delayed', 'consent', 'live'] as const;
export type Stage = (typeof STAGES)[number];

/** 'unreachable' never comes from the service: the embed app shows it when the service cannot be reached. */
export type Notice = 'unavailable' | 'not_eligible' | 'not_installed' | 'turned_off' | 'unreachable';

export const DISCOUNT_CHOICES = [10, 15, 20, 25] as const;

/** A commerce-platform action: in the same tab when the return flow holds (SPEC 4.7), else a new tab. */
export interface ActionLink {
  url: string;
  sameTab: boolean;
}

export interface ProgressStep {
  key: 'import' | 'offer' | 'match';
  label: string;
  status: 'done' | 'active' | 'pending';
}

export interface BestSellerPreview {
  title: string;
  imageUrl: string | null;
  price: string;
}

export interface OfferPreview {
  businessName: string;
  logoImageUrl: string | null;
  tagline: string | null;
  bestSellers: BestSellerPreview[];
}

export type EmbedState =
  | { kind: 'stage'; stage: 'install'; install: ActionLink }
  | { kind: 'stage'; stage: 'plan'; approve: ActionLink }
  | { kind: 'stage'; stage: 'setting_up' | 'delayed'; steps: ProgressStep[]; pollAfterMs: number }
  | {
      kind: 'stage';
      stage: 'consent';
      preview: OfferPreview;
      existingDiscountPercent: number | null;
      choices: number[];
      termsUrl: string;
      privacyUrl: string;
    }
  | {
      kind: 'stage';
      stage: 'live';
      offer: {
        title: string;
        subtitle: string | null;
        imageUrl: string | null;
        discountPercent: number | null;
        discountCode: string | null;
      };
      manageUrl: string;
    }
  | { kind: 'notice'; notice: 'unavailable' }
  | { kind: 'notice'; notice: 'not_eligible'; reasons: string[] }
  | { kind: 'notice'; notice: 'not_installed'; reinstall: ActionLink }
  | { kind: 'notice'; notice: 'turned_off' };

/**
 * What the embed page hands its script at load. The service decides which page it is from what
 * the browser guarantees, never from the address alone (docs/plugin.md, "Security"):
 * - `app`: the host page's origin (the Referer the browser sent) is approved for the platform, and
 *   the page is served with frame-ancestors listing only the approved origins. Only this page
 *   carries a store's state, asks for it again and tells the host page the stage.
 * - `refused`: the host page, or a site framing it, is not approved; nothing but the refusal.
 * - `notice`: a fixed message that holds nothing about the store: the platform is not set up
 *   (unavailable), or the service could not look it up (unreachable; Try again reloads the page,
 *   so the origin is checked again).
 */
export type EmbedBoot = {
  platformId: string;
  domain: string;
  mode: 'page' | 'drawer';
  /** The exact origin of the host page, the only target of the embed's messages; null when unknown. */
  parentOrigin: string | null;
} & (
  | {
      page: 'app';
      parentOrigin: string;
      /** Null when the store's state could not be read: the app shows "Could not reach the service". */
      state: EmbedState | null;
      /** How often to look again while the merchant works in the commerce platform's tab. */
      recheckMs: number;
    }
  | { page: 'refused' }
  | { page: 'notice'; notice: 'unavailable' | 'unreachable' }
);

/** Messages between the loader (host page) and the embed app; both sides check origin and source. */
export const MESSAGE_CHANNEL = 'embed-plugin/v2';

export type EmbedToLoader =
  | { channel: typeof MESSAGE_CHANNEL; type: 'ready' }
  | { channel: typeof MESSAGE_CHANNEL; type: 'stage'; stage: Stage }
  | { channel: typeof MESSAGE_CHANNEL; type: 'height'; height: number }
  | { channel: typeof MESSAGE_CHANNEL; type: 'refused' }
  | { channel: typeof MESSAGE_CHANNEL; type: 'escape' };

export type LoaderToEmbed =
  | { channel: typeof MESSAGE_CHANNEL; type: 'shown' }
  /** Focus wraps backwards from the drawer's Close button to the app's last control. */
  | { channel: typeof MESSAGE_CHANNEL; type: 'focus-last' };
