import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const TIMESTAMP_HEADER = 'x-svc-timestamp';

/** `sha256=<hex>` of HMAC-SHA256 over `<timestamp>.<raw body>`, so a signed body cannot be replayed with a new timestamp. */
export function signOrderBody(secret: string, timestamp: number, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

export type SignatureProblem = 'missing' | 'stale' | 'mismatch';

/** A delivery's signature, checked on the body's bytes as they arrive. */
export interface OrderSignatureCheck {
  update(chunk: Buffer): void;
  /** null when the bytes fed match the signature. */
  problem(): 'mismatch' | null;
}

/**
 * Starts checking a delivery's signature from its headers: what is wrong with them at once
 * (missing, stale), so such a body need not be read, or the check to feed the body into.
 */
export function beginOrderSignature(
  secret: string,
  toleranceSeconds: number,
  headers: { timestamp: string | undefined; signature: string | undefined },
  now: Date,
): OrderSignatureCheck | 'missing' | 'stale' {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return 'missing';
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return 'stale';
  const hmac = crypto.createHmac('sha256', secret).update(`${Number(timestamp)}.`);
  return {
    update: (chunk) => hmac.update(chunk),
    problem: () => {
      const expected = Buffer.from(`sha256=${hmac.digest('hex')}`);
      const given = Buffer.from(signature);
      // timingSafeEqual needs equal lengths; the length of a well-formed signature is public anyway.
      return given.length !== expected.length || !crypto.timingSafeEqual(given, expected) ? 'mismatch' : null;
    },
  };
}

export function checkOrderSignature(
  secret: string,
  toleranceSeconds: number,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string | Buffer,
  now: Date,
): SignatureProblem | null {
  const check = beginOrderSignature(secret, toleranceSeconds, headers, now);
  if (typeof check === 'string') return check;
  check.update(Buffer.from(body));
  return check.problem();
}
