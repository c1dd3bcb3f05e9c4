// Crypto deposit (sandbox): a deposit address for the amount; the customer confirms the deposit or cancels.
import { createHash } from 'node:crypto';
import type { MethodPages } from './parts';
import { amountDue, escapeHtml, page } from './layout';

/** A stable, obviously fake address per collection (the sandbox moves no coins). */
export function sandboxDepositAddress(gatewayReference: string): string {
  return 'sandbox1q' + createHash('sha256').update(gatewayReference).digest('hex').slice(0, 38);
}

export const cryptoPages: MethodPages = {
  render({ services, row, hidden, action }) {
    return page(
      'Crypto deposit',
      `<h1>Send your deposit</h1>
<p class="amount">${escapeHtml(amountDue(row))}</p>
<dl><dt>Address</dt><dd><code id="address">${escapeHtml(sandboxDepositAddress(row.gateway_reference))}</code></dd>
<dt>From</dt><dd>${escapeHtml(row.account_number ?? '')}</dd><dt>Reference</dt><dd>${escapeHtml(row.gateway_reference)}</dd></dl>
<form method="post" action="${escapeHtml(action)}">${hidden}
<button class="primary" name="action" value="confirm">I have sent the deposit</button>
<button class="secondary" name="action" value="cancel">Cancel</button></form>
<p class="note">The deposit is confirmed once the network reports it.</p>`,
      services.config.appEnv === 'sandbox',
    );
  },
  async answer(_p, form) {
    if (form.action === 'confirm') return { final: 'COMPLETED', message: 'Deposit confirmed' };
    if (form.action === 'cancel') return { final: 'CANCELLED' };
    return { html: page('Choose an action', '<h1>Please confirm or cancel the deposit</h1>', true), status: 400 };
  },
};
