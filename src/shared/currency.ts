/**
 * ISO 4217 currencies and their minor units. Every amount the service keeps is an integer count of
 * the currency's minor unit (cents for USD, yen for JPY, fils for KWD), so converting a decimal
 * amount needs the currency's exponent, not a fixed 100.
 *
 * The table is ISO 4217's list of active currency codes (published by SIX, amendment 179), without
 * the codes for precious metals, testing and "no currency" (XAU, XAG, XPD, XPT, XTS, XXX, XBA–XBD,
 * XDR, XSU, XUA), which no store sells in.
 */

/** Codes whose minor unit is not 1/100: ISO 4217's exponent column. */
const NON_CENT_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

const TWO_DIGIT_CODES =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW ' +
  'CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS ' +
  'INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN ' +
  'NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC ' +
  'SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...TWO_DIGIT_CODES.split(' ').map((code): [string, number] => [code, 2]),
  ...Object.entries(NON_CENT_EXPONENTS),
]);

/** Whether `code` is an active ISO 4217 currency code (upper case, as ISO writes it). */
export function isIsoCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Every active ISO 4217 code, sorted: for schemas and tests. */
export const ISO_CURRENCY_CODES: readonly string[] = [...EXPONENTS.keys()].sort();

/** The number of decimal places of the currency's minor unit (JPY 0, USD 2, KWD 3). Throws on a code that is not ISO 4217. */
export function minorUnitDigits(code: string): number {
  const digits = EXPONENTS.get(code);
  if (digits === undefined) throw new RangeError(`${code} is not an ISO 4217 currency code`);
  return digits;
}

const DECIMAL_AMOUNT = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal amount as the platform writes it ("1999.00", "12.5", "-3") in the currency's minor
 * units, exactly (no floating point). Returns undefined when the text is not a plain decimal or has
 * more places than the currency's minor unit, other than trailing zeros ("1500.00" JPY is 1500).
 */
export function decimalToMinorUnits(amount: string, code: string): number | undefined {
  const match = DECIMAL_AMOUNT.exec(amount.trim());
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const digits = minorUnitDigits(code);
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > digits) return undefined;
  const minor = Number(`${whole}${significant.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor)) return undefined;
  return sign === '-' && minor !== 0 ? -minor : minor;
}

/** Minor units back to the decimal text of major units ("1999" USD is "19.99", JPY stays "1999"). */
export function minorUnitsToDecimal(minor: number, code: string): string {
  const digits = minorUnitDigits(code);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const padded = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * Minor units as a number of major units, for a CSV's major-unit column: a number, so a
 * spreadsheet adds it up and a negative one is not mistaken for a formula (-2.5 for -250 USD).
 */
export function majorUnits(minor: number, code: string): number {
  return Number(minorUnitsToDecimal(minor, code));
}
