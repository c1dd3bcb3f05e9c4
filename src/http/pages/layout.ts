// Server-rendered hosted pages: plain HTML and a little CSS, no framework, readable on a phone.
import type { CollectionRow } from '../../domain/collection';
import { customerPaysMinor } from '../../domain/fees';
import { moneyText } from '../../domain/currencies';

/** What the customer pays in the currency's own minor unit, e.g. "25,000 UGX", "12.50 USD": the fee on top when the customer bears it. */
export function amountDue(row: CollectionRow): string {
  return moneyText(customerPaysMinor(row.account_amount_minor, row.fee_minor, row.customer_charged), row.account_currency);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

const CSS = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:420px;margin:0 auto;padding:24px 16px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.25rem;margin:0 0 12px}.amount{font-size:1.75rem;font-weight:700;margin:8px 0 16px}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 12px;margin:0 0 16px}dt{color:#667}dd{margin:0;word-break:break-all}
label{display:block;margin:12px 0 4px;font-size:.9rem}input{width:100%;box-sizing:border-box;padding:12px;font-size:1rem;border:1px solid #ccd;border-radius:8px}
.row{display:flex;gap:12px}.row>*{flex:1}
button{width:100%;padding:14px;font-size:1rem;border:0;border-radius:8px;margin-top:16px;cursor:pointer}
.primary{background:#1a56db;color:#fff}.secondary{background:#e5e7eb;color:#1d2330}
.error{color:#b42318;font-size:.9rem;margin:4px 0 0}.note{color:#667;font-size:.85rem;margin-top:16px}
.sandbox{background:#fff4ce;color:#5c4400;padding:8px 12px;border-radius:8px;font-size:.85rem;margin-bottom:16px}
`;

/** A page; `refreshSeconds` reloads it by itself (no JavaScript), e.g. while a payment is pending. */
export function page(title: string, body: string, sandbox: boolean, refreshSeconds?: number): string {
  const refresh = refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">${refresh}<title>${escapeHtml(title)} · PayCollect</title><style>${CSS}</style></head>
<body><main>${sandbox ? '<p class="sandbox" role="note">Sandbox: no real money moves.</p>' : ''}<div class="card">${body}</div></main></body></html>`;
}
