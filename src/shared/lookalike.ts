import unhomoglyph from 'unhomoglyph';

/**
 * A name as it looks, for comparing: its UTS #39 confusable skeleton (unhomoglyph maps each
 * character to the one it is confused with, Cyrillic "а" to "a", capital "I" to "l", "0" to "O"),
 * taken after compatibility forms are folded (NFKC: full-width letters) and accents dropped (NFD
 * without its marks: "á" to "a"), then lowercased and mapped again (a lowercased letter may have a
 * mapping of its own), with only letters and digits kept: spacing and punctuation change nothing.
 * Lowercasing loses which "i" was a capital "I" that reads as "l", so "i" and "l" are one letter here
 * ("OFFICIAI" is "official").
 */
export function lookalikeSkeleton(text: string): string {
  const unaccented = text.normalize('NFKC').normalize('NFD').replace(/\p{M}/gu, '');
  return unhomoglyph(unhomoglyph(unaccented).toLowerCase())
    .normalize('NFD')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .replaceAll('i', 'l');
}
