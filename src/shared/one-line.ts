/**
 * Control characters (C0, DEL, C1: line breaks, carriage returns, tabs among them) and the Unicode
 * line and paragraph separators: what a name may not hold (src/http/schemas.ts ONE_LINE_PATTERN
 * refuses them in requests; docs/security.md, "Names are one line").
 */
const LINE_BREAKING = /[\p{Cc}\p{Zl}\p{Zp}]+/gu;

/**
 * A name a commerce platform sent, made one line: each run of control characters becomes a
 * space, spaces are collapsed and the ends trimmed. Names a client sends are refused instead;
 * a store's own name cannot be sent back, so it is cleaned (as migration 0044 cleaned those stored).
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, ' ').replace(/ {2,}/g, ' ').trim();
}
