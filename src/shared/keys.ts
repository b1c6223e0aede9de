import crypto from 'node:crypto';
import type { ServiceEnv } from '../config.js';

export type KeyEnvironment = 'test' | 'live';

/** test and dev hosts take test keys; prod takes live keys (SPEC 5.1, DESIGN 4). */
export function keyEnvironmentFor(serviceEnv: ServiceEnv): KeyEnvironment {
  return serviceEnv === 'prod' ? 'live' : 'test';
}

export const brandKeyPrefix = (environment: KeyEnvironment) => `svc_${environment}_`;
export const platformKeyPrefix = (environment: KeyEnvironment) => `svc_platform_${environment}_`;

export const PLATFORM_KEY_MARKER = 'svc_platform_';

const KEY_BODY_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 32 characters of base62 from a CSPRNG: about 190 bits, far past guessing. */
export function randomToken(length = 32): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out.push(BASE62[byte % 62]!);
    }
  }
  return out.join('');
}

export function generateBrandKey(environment: KeyEnvironment): string {
  return brandKeyPrefix(environment) + randomToken();
}

export function generatePlatformKey(environment: KeyEnvironment): string {
  return platformKeyPrefix(environment) + randomToken();
}

/**
 * Keys are long random strings, so a fast hash is enough (no dictionary to guess from);
 * the hash is the lookup index, and the plaintext is never stored.
 */
export function hashSecret(plaintext: string): string {
  // The one-shot form: no Hash object per call, on the path of every authenticated request.
  return crypto.hash('sha256', plaintext, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    crypto.timingSafeEqual(left, left);
    return false;
  }
  return crypto.timingSafeEqual(left, right);
}

const SECRET_HASH = /^[0-9a-f]{64}$/;

/** Whether a value has the shape of hashSecret's output (a challenge handed to a commerce platform as state, say). */
export function isSecretHash(value: unknown): value is string {
  return typeof value === 'string' && SECRET_HASH.test(value);
}

export const lastFour = (plaintext: string) => plaintext.slice(-4);

/** Checks a presented key's shape against an expected prefix; returns the failed check or null. */
export function checkKeyShape(key: string, expectedPrefix: string): string | null {
  if (!key.startsWith(expectedPrefix)) return `key must start with ${expectedPrefix} on this host`;
  if (!KEY_BODY_PATTERN.test(key.slice(expectedPrefix.length))) return 'key is malformed';
  return null;
}
