// A merchant reference the forms suggest (a new disbursement, a refund), so a required field is never
// an empty puzzle: the kind, the day and six random characters, most likely used by nobody yet.
const SUGGESTION_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** `DASH-20251125-K7Q2MX` for a disbursement, `RFD-20251125-K7Q2MX` for a refund. */
export function suggestedReference(prefix: string): string {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => SUGGESTION_ALPHABET[b % SUGGESTION_ALPHABET.length]).join('');
  return `${prefix}-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${random}`;
}
