/**
 * Amounts as the service keeps them: integer minor units of an ISO 4217 currency. The browser's
 * Intl.NumberFormat writes them in the reader's locale, but its decimals (CLDR's) are not always
 * ISO 4217's, which the amounts are counted in: for these codes ISO has more decimals than CLDR
 * shows. test/architecture/money-format.test.ts checks this table against src/shared/currency.ts
 * for every ISO 4217 code.
 */
const ISO_DIGITS_WHERE_CLDR_DIFFERS: Readonly<Record<string, number>> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

/** The decimals of the currency's minor unit, as ISO 4217 counts them. */
export function minorUnitDigits(currency: string): number {
  return (
    ISO_DIGITS_WHERE_CLDR_DIFFERS[currency] ??
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
    2
  );
}

/** An amount in minor units of its currency, written as the currency writes it ($12.34, ¥1,234, 12,34 € in the browser's locale). */
export function currencyAmount(minor: number, currency: string, locale?: string): string {
  const digits = minorUnitDigits(currency);
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return format.format(minor / 10 ** digits);
}
