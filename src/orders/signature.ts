import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const TIMESTAMP_HEADER = 'x-svc-timestamp';

/** `sha256=<hex>` of HMAC-SHA256 over `<timestamp>.<raw body>`, so a signed body cannot be replayed with a new timestamp. */
export function signOrderBody(secret: string, timestamp: number, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

export type SignatureProblem = 'missing' | 'stale' | 'mismatch';

export function checkOrderSignature(
  secret: string,
  toleranceSeconds: number,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string | Buffer,
  now: Date,
): SignatureProblem | null {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return 'missing';
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return 'stale';
  const expected = Buffer.from(signOrderBody(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  // timingSafeEqual needs equal lengths; the length of a well-formed signature is public anyway.
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'mismatch';
  return null;
}
