/**
 * The longest text a protocol STRING / COMPACT_STRING can carry: 32,767 UTF-8 bytes. Kafka's
 * generated serializers refuse a longer one (the reader refuses it too), so a response field built
 * from client input (an error message quoting a 32,767-character topic name) must be cut to fit,
 * or the whole answer is unencodable and the connection is lost.
 */
export const MAX_STRING_FIELD_BYTES = 0x7fff;

const ELISION = '...';

/** The longest prefix of `s` (whole UTF-16 code units, no split surrogate pair) of at most `bytes` UTF-8 bytes. */
function prefixWithin(s: string, bytes: number): string {
  let lo = 0;
  let hi = Math.min(s.length, bytes);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (Buffer.byteLength(s.slice(0, mid)) <= bytes) lo = mid;
    else hi = mid - 1;
  }
  const code = s.charCodeAt(lo - 1);
  return lo > 0 && code >= 0xd800 && code <= 0xdbff ? s.slice(0, lo - 1) : s.slice(0, lo);
}

/**
 * `s` unchanged when it fits a string field, else its start and end joined by "...": the middle is
 * what goes, so a message that quotes a long name keeps both its opening and its reason.
 */
export function fitStringField(s: string, maxBytes = MAX_STRING_FIELD_BYTES): string {
  if (Buffer.byteLength(s) <= maxBytes) return s;
  const half = Math.floor((maxBytes - ELISION.length) / 2);
  const head = prefixWithin(s, half);
  const reversed = [...s].reverse().join('');
  const tail = [...prefixWithin(reversed, half)].reverse().join('');
  return head + ELISION + tail;
}
