import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cookieTrusting, trustedDevice } from './device-cookies.js';
import { type AttemptHistory, SIGN_IN_THROTTLE, signInTurn } from './throttle.js';

const key = crypto.randomBytes(32);

describe('device cookies (issue 44)', () => {
  it('name one account: a token is no token for another account, under another key, or altered', () => {
    const cookie = cookieTrusting(undefined, 'owner@acme.example', key);
    const device = trustedDevice(cookie, 'owner@acme.example', key);
    expect(device).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(cookie).not.toContain('owner');
    expect(trustedDevice(cookie, 'other@acme.example', key)).toBeNull();
    expect(trustedDevice(cookie, 'owner@acme.example', crypto.randomBytes(32))).toBeNull();
    const [nonce, signature] = cookie.split('.') as [string, string];
    expect(trustedDevice(`${nonce.slice(0, -1)}${nonce.endsWith('a') ? 'b' : 'a'}.${signature}`, 'owner@acme.example', key)).toBeNull();
    expect(trustedDevice(`${nonce}.${signature.slice(1)}`, 'owner@acme.example', key)).toBeNull();
    expect(trustedDevice(undefined, 'owner@acme.example', key)).toBeNull();
  });

  it("keeps one token per account, the newest sign-in's first, at most five", () => {
    let cookie = cookieTrusting(undefined, 'a@acme.example', key);
    const first = trustedDevice(cookie, 'a@acme.example', key);
    for (const account of ['b', 'c', 'd', 'e', 'f']) cookie = cookieTrusting(cookie, `${account}@acme.example`, key);
    expect(cookie.split('~')).toHaveLength(5);
    expect(trustedDevice(cookie, 'a@acme.example', key)).toBeNull();
    expect(trustedDevice(cookie, 'b@acme.example', key)).not.toBeNull();
    const again = cookieTrusting(cookie, 'f@acme.example', key);
    expect(again).toBe(cookie);
    expect(first).not.toBeNull();
  });
});

describe('the sign-in turn of a trusted device', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const spent: AttemptHistory = {
    accountFailures: 0,
    latestAccountFailure: null,
    addressAttempts: 0,
    oldestAddressAttempt: null,
    untrustedFailures: SIGN_IN_THROTTLE.untrustedFailuresPerAccount,
    oldestUntrustedFailure: new Date(now.getTime() - 60_000),
    deviceFailures: 0,
  };

  it("goes on past the account's spent untrusted budget, recorded as that device, until its own budget is spent", () => {
    expect(signInTurn(spent, null, now)).toEqual({ wait: { limit: 'untrusted', retryAfterSeconds: 59 * 60 } });
    expect(signInTurn(spent, 'device-nonce', now)).toEqual({ device: 'device-nonce' });
    const deviceSpent = { ...spent, deviceFailures: SIGN_IN_THROTTLE.failuresPerDevice };
    expect(signInTurn(deviceSpent, 'device-nonce', now)).toEqual({ wait: { limit: 'untrusted', retryAfterSeconds: 59 * 60 } });
    expect(signInTurn({ ...deviceSpent, untrustedFailures: 0 }, 'device-nonce', now)).toEqual({ device: null });
  });
});
