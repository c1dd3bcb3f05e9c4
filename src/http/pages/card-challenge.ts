// The sandbox issuer's 3-D Secure challenge for a card on a PENDING collection, and its outcome. The
// page knows the card only by its masked number and fingerprint: the full number is never at hand here.
import { DISPUTING_CARDS, maskPan } from '../../domain/card';
import type { CollectionRow } from '../../domain/collection';
import type { Services } from '../../wiring';
import type { PageRequest } from './parts';
import { amountDue, escapeHtml, page } from './layout';

export const MESSAGES = {
  authenticated: 'Card payment authenticated with 3-D Secure',
  authenticationFailed: '3-D Secure authentication failed',
  notTestCard: '3-D Secure authentication failed: the card is not a sandbox 3-D Secure test card',
} as const;

/**
 * The sandbox issuer's answer to "Authenticate" (the disputing cards authenticate, their payments then
 * disputed: src/sandbox/disputes.ts). The designated cards are recognised by fingerprint
 * (the exact number, keyed), not by the masked form, which other numbers share.
 */
export function challengeOutcome(s: Services, row: CollectionRow): { final: 'COMPLETED' | 'FAILED'; message: string } {
  // the test cards' fingerprints are made once per key (testCardFingerprint), not again for each answer
  const authenticates = [s.config.sandboxCard3dsSuccess, DISPUTING_CARDS.lost, DISPUTING_CARDS.won];
  if (authenticates.some((pan) => row.card_fingerprint === s.cards.testCardFingerprint(pan))) return { final: 'COMPLETED', message: MESSAGES.authenticated };
  if (row.card_fingerprint === s.cards.testCardFingerprint(s.config.sandboxCard3dsFailure)) return { final: 'FAILED', message: MESSAGES.authenticationFailed };
  return { final: 'FAILED', message: MESSAGES.notTestCard };
}

function sandboxNote(s: Services): string {
  if (s.config.appEnv !== 'sandbox') return '';
  return `<p class="note">Sandbox issuer: card ${escapeHtml(maskPan(s.config.sandboxCard3dsSuccess))} authenticates,
${escapeHtml(maskPan(s.config.sandboxCard3dsFailure))} fails, ${escapeHtml(maskPan(DISPUTING_CARDS.lost))} and ${escapeHtml(maskPan(DISPUTING_CARDS.won))}
authenticate and are then disputed; any other card fails as it is not a 3-D Secure test card.</p>`;
}

export function challengePage({ services, row, hidden, action }: PageRequest): string {
  return page(
    '3-D Secure',
    `<h1>Verify your payment</h1>
<p>Your card issuer asks you to confirm this payment.</p>
<p class="amount">${escapeHtml(amountDue(row))}</p>
<dl><dt>Card</dt><dd id="card">${escapeHtml(row.card_masked ?? '')}</dd><dt>For</dt><dd>${escapeHtml(row.narration)}</dd>
<dt>Reference</dt><dd>${escapeHtml(row.gateway_reference)}</dd></dl>
<form method="post" action="${escapeHtml(action)}">${hidden}
<button class="primary" name="action" value="authenticate">Authenticate</button>
<button class="secondary" name="action" value="cancel">Cancel</button></form>
${sandboxNote(services)}`,
    services.config.appEnv === 'sandbox',
  );
}
