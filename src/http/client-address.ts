import net from 'node:net';
import type { FastifyRequest } from 'fastify';

/** Headers a proxy adds when it relays someone else's request. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'];
/** `localhost`, `127.x.y.z` or `[::1]`, with or without a port. */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const unmapped = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (net.isIPv4(unmapped)) return unmapped.startsWith('127.');
  return unmapped === '::1';
}

/**
 * Whether a request comes from a browser or program on the machine running the service: its TCP
 * peer and its client address (`request.ip`, as TRUST_PROXY derives it) are loopback, no proxy
 * announced itself with forwarding headers, and it was sent to a loopback name, so another site
 * whose name was pointed at 127.0.0.1 (DNS rebinding) is refused as well. A relay on this machine
 * that passes other machines' requests on without any forwarding header cannot be told apart from
 * a local browser, hence docs/operations.md: a host behind a proxy sets SMTP_URL.
 */
export function isFromThisMachine(request: FastifyRequest): boolean {
  if (!isLoopbackAddress(request.socket.remoteAddress) || !isLoopbackAddress(request.ip)) return false;
  if (FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)) return false;
  return LOOPBACK_HOST.test(request.headers.host ?? '');
}
