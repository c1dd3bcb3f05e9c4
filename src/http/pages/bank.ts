// Online banking (sandbox): the customer approves or cancels the transfer at their simulated bank.
import type { MethodPages } from './parts';
import { amountDue, escapeHtml, page } from './layout';

export const bankPages: MethodPages = {
  render({ services, row, hidden, action }) {
    return page(
      'Approve bank transfer',
      `<h1>${escapeHtml(row.institution_name ?? 'Online banking')}</h1>
<p>Approve this transfer from account ${escapeHtml(row.account_number ?? '')}:</p>
<p class="amount">${escapeHtml(amountDue(row))}</p>
<dl><dt>To</dt><dd>${escapeHtml(row.narration)}</dd><dt>Reference</dt><dd>${escapeHtml(row.gateway_reference)}</dd></dl>
<form method="post" action="${escapeHtml(action)}">${hidden}
<button class="primary" name="action" value="approve">Approve transfer</button>
<button class="secondary" name="action" value="cancel">Cancel</button></form>`,
      services.config.appEnv === 'sandbox',
    );
  },
  async answer(_p, form) {
    if (form.action === 'approve') return { final: 'COMPLETED', message: 'Transfer approved by the customer' };
    if (form.action === 'cancel') return { final: 'CANCELLED' };
    return { html: page('Choose an action', '<h1>Please approve or cancel the transfer</h1>', true), status: 400 };
  },
};
