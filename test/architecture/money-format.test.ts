import { describe, expect, it } from 'vitest';
import { ISO_CURRENCY_CODES, minorUnitDigits as isoDigits } from '../../src/shared/currency.js';
import { currencyAmount, minorUnitDigits } from '../../web/dashboard/money.js';

describe("the pages' money formatting", () => {
  it('counts every ISO 4217 currency in the minor units the server keeps it in', () => {
    const wrong = ISO_CURRENCY_CODES.filter((code) => minorUnitDigits(code) !== isoDigits(code));
    expect(wrong).toEqual([]);
  });

  it('writes JPY without decimals, KWD with three and IDR with two, whatever CLDR shows', () => {
    // Intl separates a code from its amount with a no-break space.
    const written = (minor: number, currency: string) => currencyAmount(minor, currency, 'en-US').replace(/\s/g, ' ');
    expect(written(1234, 'JPY')).toBe('¥1,234');
    expect(written(12_345, 'KWD')).toBe('KWD 12.345');
    expect(written(150_000, 'IDR')).toBe('IDR 1,500.00');
    expect(written(-10_003, 'USD')).toBe('-$100.03');
  });
});
