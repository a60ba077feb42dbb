/**
 * The JSON text of a string, as `JSON.stringify(text)` writes it. Most strings the service
 * writes per request (ids, timestamps, route templates, titles) are short and need no escape:
 * those are quoted as they are, which is cheaper than the generic call (the same shortcut
 * fast-json-stringify takes); anything else, and every long string, goes to `JSON.stringify`.
 */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

export function jsonString(text: string): string {
  return text.length < 42 && !NEEDS_ESCAPE.test(text) ? `"${text}"` : JSON.stringify(text);
}
