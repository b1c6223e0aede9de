import { Type, type TUnsafe } from 'typebox';

/** A string limited to a list of values, as a plain JSON Schema enum (clear error messages, clean OpenAPI). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
