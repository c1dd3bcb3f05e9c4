// Hosted card pages (docs/contract/hosted-pages.md): a card entry form when the merchant sent no
// encrypted_card, then the sandbox 3-D Secure challenge; a direct card payment goes straight to the
// challenge. Which page a collection is on follows from its row: no card recorded yet -> entry.
// The full card number and the CVV exist only in this request's memory: what is kept is the masked
// number and the keyed fingerprint (CardService.recordHostedCard).
import { DISPUTING_CARDS, validateCard } from '../../domain/card';
import type { CardDetails } from '../../domain/card';
import { isFinal } from '../../domain/collection';
import { cardFromForm, entryFields, errorsByField } from './card-entry';
import type { EntryForm } from './card-entry';
import { challengeOutcome, challengePage } from './card-challenge';
import type { Answer, MethodPages, PageRequest } from './parts';
import { amountDue, escapeHtml, page } from './layout';

/** Groups of four, as printed on a card (and as people type it). */
const grouped = (pan: string) => pan.replace(/(\d{4})(?=\d)/g, '$1 ');

function testCardsNote(p: PageRequest): string {
  const c = p.services.config;
  if (c.appEnv !== 'sandbox') return '';
  return `<p class="note">Sandbox test cards (any future expiry date, any CVV): ${escapeHtml(grouped(c.sandboxCard3dsSuccess))} passes
3-D Secure, ${escapeHtml(grouped(c.sandboxCard3dsFailure))} fails it; ${escapeHtml(grouped(DISPUTING_CARDS.lost))} and ${escapeHtml(grouped(DISPUTING_CARDS.won))}
pass and the payment is then disputed (accepted, or won, at its deadline).</p>`;
}

function entryPage(p: PageRequest, form: EntryForm, notice?: string): string {
  const { row, hidden, action, services } = p;
  const summary = notice ? `<p class="error" role="alert">${escapeHtml(notice)}</p>` : '';
  return page(
    'Card payment',
    `<h1>Pay by card</h1>
<p class="amount">${escapeHtml(amountDue(row))}</p>
<dl><dt>For</dt><dd>${escapeHtml(row.narration)}</dd><dt>Reference</dt><dd>${escapeHtml(row.gateway_reference)}</dd></dl>
${summary}<form method="post" action="${escapeHtml(action)}" autocomplete="on">${hidden}
${entryFields(form)}
<button class="primary" name="action" value="pay">Pay</button>
<button class="secondary" name="action" value="cancel" formnovalidate>Cancel</button></form>
${testCardsNote(p)}`,
    services.config.appEnv === 'sandbox',
  );
}

const blankForm = (p: PageRequest): EntryForm => ({ values: { full_name: p.row.account_name ?? '' }, errors: {} });

/** The entry form posted: validate, then keep only the masked number and fingerprint, then the challenge. */
async function entered(p: PageRequest, card: CardDetails): Promise<Answer> {
  const errors = validateCard(card, p.services.now());
  if (errors.length > 0) {
    const html = entryPage(p, { values: card, errors: errorsByField(errors) }, 'Please correct the fields marked below.');
    return { html, status: 422 };
  }
  const recorded = await p.services.cards.recordHostedCard(p.row.id, card.card_number);
  if (recorded) return { html: challengePage({ ...p, row: recorded }) };
  // Not PENDING any more, or a card was recorded meanwhile (another tab): answer with what is there.
  const current = await p.services.collections.get(p.row.gateway_reference, null);
  if (isFinal(current.status)) return { final: current.status };
  return { html: challengePage({ ...p, row: current }) };
}

async function answerEntry(p: PageRequest, form: Record<string, string>): Promise<Answer> {
  if (form.action === 'pay') return entered(p, cardFromForm(form));
  return { html: entryPage(p, blankForm(p), 'Please enter your card details and choose Pay.'), status: 400 };
}

function answerChallenge(p: PageRequest, form: Record<string, string>): Answer {
  if (form.action === 'authenticate') return challengeOutcome(p.services, p.row);
  // A card is already on this payment (e.g. an entry form posted again from another tab): the
  // challenge for that card, never a switch of cards halfway through.
  return { html: challengePage(p), status: form.action === 'pay' ? 200 : 400 };
}

export const cardPages: MethodPages = {
  render(p) {
    return p.row.card_masked ? challengePage(p) : entryPage(p, blankForm(p));
  },
  async answer(p, form) {
    if (form.action === 'cancel') return { final: 'CANCELLED' };
    return p.row.card_masked ? answerChallenge(p, form) : answerEntry(p, form);
  },
};
