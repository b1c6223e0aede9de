import { MESSAGE_CHANNEL, type EmbedToLoader, type LoaderToEmbed, type Stage } from '../../src/embed/embed-contract';

type Outgoing =
  | { type: 'ready' }
  | { type: 'stage'; stage: Stage }
  | { type: 'height'; height: number }
  | { type: 'refused' }
  | { type: 'escape' };

/** Messages to the loader go to the host page's exact origin, never '*'; with no known origin, nowhere. */
export function createBridge(parentOrigin: string | null) {
  const framed = window.parent !== window;
  return {
    send(message: Outgoing): void {
      if (!framed || !parentOrigin) return;
      window.parent.postMessage({ channel: MESSAGE_CHANNEL, ...message } as EmbedToLoader, parentOrigin);
    },
    /** Listens to the loader only: the host page's exact origin and our own parent window. */
    listen(handler: (message: LoaderToEmbed) => void): () => void {
      const receive = (event: MessageEvent) => {
        if (event.origin !== parentOrigin || event.source !== window.parent) return;
        const data = event.data as LoaderToEmbed | null;
        if (data && typeof data === 'object' && data.channel === MESSAGE_CHANNEL) handler(data);
      };
      window.addEventListener('message', receive);
      return () => window.removeEventListener('message', receive);
    },
  };
}
