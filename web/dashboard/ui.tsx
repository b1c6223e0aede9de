import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure } from './api.ts';

/** Runs an action, turning its failure into a message shown next to the form. */
export function useAction(): [string | null, (work: () => Promise<void>) => Promise<void>, boolean] {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'Something went wrong. Try again.');
    } finally {
      setBusy(false);
    }
  };
  return [error, run, busy];
}

export function ErrorText({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
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
