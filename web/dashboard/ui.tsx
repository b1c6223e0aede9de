import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api.ts';

/**
 * The words on screen for the API's field names, lower case: a message from the service names
 * the field it checked (`endDate must be after startDate`), the person sees the form's labels.
 * A form passes its own where a name means something else there (a key's name, a campaign's name).
 */
const SCREEN_LABELS: Record<string, string> = {
  startDate: 'start date',
  endDate: 'end date',
  title: 'title',
  subtitle: 'subtitle',
  imageUrl: 'image URL',
  discountPercent: 'discount',
  'offer.title': 'offer title',
  'offer.subtitle': 'offer subtitle',
  'offer.imageUrl': 'offer image URL',
  'brand.businessName': 'brand name',
  'brand.domain': 'store domain',
  'brand.categories': 'categories',
  businessName: 'brand name',
  domain: 'store domain',
  email: 'email',
  password: 'password',
  invitationCode: 'invitation code',
  token: 'reset token',
  message: 'message',
  partnerId: 'partner',
  redirectUris: 'redirect URIs',
  q: 'search text',
};

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A message of the service in the words on screen: each field name becomes its label ("End date"
 * at the start of the sentence, "the start date" inside it), and the sentence starts with a capital.
 * A name that is also an ordinary word (`name`, `email`) is a field only where the message starts.
 */
export function inScreenWords(message: string, labels: Record<string, string> = {}): string {
  const all: Record<string, string> = { ...SCREEN_LABELS, ...labels };
  const names = Object.keys(all).sort((a, b) => b.length - a.length);
  const isIdentifier = (name: string) => /[A-Z.]/.test(name);
  // No lookbehind: Safari 15 has none. The character before a name is kept as it was.
  const pattern = new RegExp(`(^|[^\\w.])(?:query parameter |path parameter )?(${names.map(escapeForPattern).join('|')})(?![\\w.])`, 'g');
  const worded = message
    .replace(pattern, (match: string, before: string, name: string, offset: number, whole: string) => {
      const label = all[name]!;
      if (offset === 0 && before === '') return label;
      if (!isIdentifier(name)) return match;
      const preceding = whole.slice(0, offset + before.length);
      return /(\bthe|'s) $/.test(preceding) ? `${before}${label}` : `${before}the ${label}`;
    })
    .replace(/\bdate-time\b/g, 'date and time');
  return worded.charAt(0).toUpperCase() + worded.slice(1);
}

/**
 * Runs an action, turning its failure into a message shown next to the form, in the form's words
 * (`labels`: the API's field names the form shows under other labels).
 */
export function useAction(
  labels: Record<string, string> = {},
): [string | null, (work: () => Promise<void>) => Promise<void>, boolean, (message: string | null) => void] {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof ApiFailure ? inScreenWords(failure.message, labels) : 'Something went wrong. Try again.');
    } finally {
      setBusy(false);
    }
  };
  return [error, run, busy, setError];
}

export function ErrorText({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/**
 * What an action did, said where the person acted. The live region is always in the page, so a
 * screen reader announces the text when it appears.
 */
export function StatusText({ text }: { text: string | null }) {
  const region = useRef<HTMLParagraphElement>(null);
  // The control the person used may be gone with the row it acted on: focus goes to what happened.
  useEffect(() => {
    if (text) region.current?.focus();
  }, [text]);
  return (
    <p role="status" tabIndex={-1} ref={region} class={text ? 'notice' : 'status-empty'}>
      {text}
    </p>
  );
}

/**
 * An action that asks first: the button opens a question with the action and Cancel (focus moves
 * to the question's action, and back to the button on Cancel). Destructive unless `primary` says
 * it is the item's main action (it then looks like one, and its confirmation is not red).
 */
export function ConfirmAction(props: {
  /** The button's text, and its accessible name where the text alone is ambiguous in a list. */
  label: string;
  name?: string;
  question: string;
  confirmLabel: string;
  cancelLabel?: string;
  primary?: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [returnFocus, setReturnFocus] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
    else if (returnFocus) openButton.current?.focus();
  }, [asking, returnFocus]);
  if (!asking) {
    return (
      <button
        type="button"
        class={props.primary ? undefined : 'secondary'}
        aria-label={props.name}
        ref={openButton}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  }
  return (
    <fieldset class={props.primary ? 'confirm calm' : 'confirm'}>
      <legend>{props.question}</legend>
      <button
        type="button"
        class={props.primary ? undefined : 'danger'}
        ref={confirmButton}
        onClick={() => {
          setAsking(false);
          void props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          setReturnFocus(true);
          setAsking(false);
        }}
      >
        {props.cancelLabel ?? 'Cancel'}
      </button>
    </fieldset>
  );
}

export function Field(props: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the field's child, which the label wraps
    <label class="field">
      <span>{props.label}</span>
      {props.children}
      {props.hint && <small>{props.hint}</small>}
    </label>
  );
}

export const formValue = (form: HTMLFormElement, name: string) => (new FormData(form).get(name) as string | null) ?? '';

export const STATUS_LABELS: Record<string, string> = {
  active: 'Partner',
  inviteSent: 'Request sent',
  inviteReceived: 'Request received',
  declined: 'Declined',
  removed: 'Removed',
};

export const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
