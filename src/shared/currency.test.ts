import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalToMinorUnits, ISO_CURRENCY_CODES, isIsoCurrency, minorUnitDigits, minorUnitsToDecimal } from './currency.js';

describe('ISO 4217 currencies', () => {
  it('knows the minor unit of each kind of currency', () => {
    expect(minorUnitDigits('USD')).toBe(2);
    expect(minorUnitDigits('EUR')).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('KRW')).toBe(0);
    expect(minorUnitDigits('KWD')).toBe(3);
    expect(minorUnitDigits('CLF')).toBe(4);
  });

  it('refuses codes that are not active ISO 4217 currencies', () => {
    for (const code of ['ZZZ', 'usd', 'US', 'XXX', 'XTS', 'XAU', '', 'EURO']) {
      expect(isIsoCurrency(code)).toBe(false);
      expect(() => minorUnitDigits(code)).toThrow(RangeError);
    }
    expect(ISO_CURRENCY_CODES.length).toBeGreaterThan(150);
    expect(ISO_CURRENCY_CODES.every((code) => /^[A-Z]{3}$/.test(code))).toBe(true);
  });

  it('converts decimal text to minor units by the currency, exactly', () => {
    expect(decimalToMinorUnits('100.03', 'USD')).toBe(10003);
    expect(decimalToMinorUnits('0.1', 'USD')).toBe(10);
    expect(decimalToMinorUnits('1500', 'JPY')).toBe(1500);
    expect(decimalToMinorUnits('1500.00', 'JPY')).toBe(1500);
    expect(decimalToMinorUnits('12.345', 'KWD')).toBe(12345);
    expect(decimalToMinorUnits('-3', 'EUR')).toBe(-300);
    expect(decimalToMinorUnits('-0.00', 'EUR')).toBe(0);
  });

  it('refuses text that is not a plain decimal or is finer than the minor unit', () => {
    for (const [text, code] of [
      ['1.5', 'JPY'],
      ['1.001', 'USD'],
      ['1e3', 'USD'],
      ['', 'USD'],
      ['1,00', 'EUR'],
      ['NaN', 'USD'],
      ['99999999999999999999', 'USD'],
    ] as const) {
      expect(decimalToMinorUnits(text, code)).toBeUndefined();
    }
  });

  it('round-trips every amount through its decimal text', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ISO_CURRENCY_CODES), fc.integer({ min: -1e12, max: 1e12 }), (code, minor) => {
        expect(decimalToMinorUnits(minorUnitsToDecimal(minor, code), code)).toBe(minor === 0 ? 0 : minor);
      }),
    );
  });
});
