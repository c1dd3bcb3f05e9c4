// The merchant's payment links (docs/contract/payment-links.md): the New payment link form, then each link
// with its amount (or range), state and counts, its URL to copy and its QR code, and for owners Deactivate,
// which asks first, with the message customers will read on the link's page, and Reactivate for a deactivated
// link.
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Money, Section, Time } from '../../ui/parts';
import { NewPaymentLink } from './NewPaymentLink';

type PaymentLink = Admin['AdminPaymentLink'];

export function PaymentLinks({ businessId }: { businessId: number }) {
  const { list, pages } = useCursorList(['payment-links', businessId], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/payment-links', { params: { query: { business_id: businessId, cursor, per_page: 25 } } })),
  );
  return (
    <>
      <h1>Payment links</h1>
      <p>
        A link to share in a chat, an invoice or a QR code: the customer opens it and pays on PayCollect&apos;s page. Each payment is an ordinary payment, made and notified
        under the API token you choose for the link.
      </p>
      <Section title="New payment link">
        <Guard need="createLinks">
          <NewPaymentLink businessId={businessId} />
        </Guard>
      </Section>
      <Section title="Your payment links">
        {list.isPending && <Loading what="payment links" />}
        {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
        {list.data && list.data.items.length === 0 && <p>No payment link yet.</p>}
        {list.data?.items.map((l) => <LinkCard key={l.link_id} link={l} />)}
        <Pager pages={pages} total={list.data?.total} />
      </Section>
    </>
  );
}

/**
 * The QR code is served by this service beside the link's page; the dashboard, served by the same service,
 * loads it by its path, as its Content-Security-Policy allows images of its own origin only.
 */
const pathOf = (url: string) => new URL(url).pathname;

function LinkCard({ link }: { link: PaymentLink }) {
  const mayDeactivate = useCan('deactivateLinks');
  const [asking, setAsking] = useState(false);
  const amount =
    link.amount !== null ? (
      <Money amount={link.amount} currency={link.currency} />
    ) : (
      <>
        <Money amount={link.min_amount ?? 0} currency={link.currency} /> to <Money amount={link.max_amount ?? 0} currency={link.currency} />, the customer chooses
      </>
    );
  return (
    <article className="token" aria-label={`Payment link ${link.title}`}>
      <h3>{link.title}</h3>
      <dl className="pairs">
        <dt>Amount</dt>
        <dd>{amount}</dd>
        <dt>Currency</dt>
        <dd>{link.currency}</dd>
        <dt>State</dt>
        <dd>
          <span className={`status status-${link.state}`}>{link.state}</span>
          {link.deactivation_message && <> “{link.deactivation_message}”</>}
        </dd>
        <dt>Attempts</dt>
        <dd>{link.attempts}</dd>
        <dt>Completed</dt>
        <dd>
          {link.completed_payments}
          {link.completed_limit !== null && ` of at most ${link.completed_limit}`}
        </dd>
        <dt>Collected</dt>
        <dd>
          <Money amount={link.amount_collected} currency={link.currency} />
        </dd>
        <dt>Expires</dt>
        <dd>{link.expires_at ? <Time at={link.expires_at} /> : 'never'}</dd>
        <dt>Link</dt>
        <dd>
          <CopyText text={link.url} label={`URL of ${link.title}`} />
        </dd>
        <dt>QR code</dt>
        <dd>
          <img className="link-qr" src={pathOf(link.qr_svg_url)} alt={`QR code of ${link.url}`} width={160} height={160} />
          <br />
          <a href={link.qr_png_url} download>
            Download the QR code as PNG
          </a>
        </dd>
      </dl>
      {mayDeactivate && link.state === 'active' && !asking && (
        <div className="actions">
          <button type="button" className="small danger" onClick={() => setAsking(true)}>
            Deactivate
          </button>
        </div>
      )}
      {asking && <DeactivateForm link={link} onDone={() => setAsking(false)} />}
      {mayDeactivate && link.state === 'deactivated' && <Reactivate link={link} />}
    </article>
  );
}

/** Reactivate: the link takes payments again (until it expires or reaches its limit); nothing to confirm, as Deactivate undoes it. */
function Reactivate({ link }: { link: PaymentLink }) {
  const queries = useQueryClient();
  const reactivate = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/payment-links/{link_id}/reactivate', { params: { path: { link_id: link.link_id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['payment-links'] }),
  });
  return (
    <div className="actions">
      <button type="button" className="small" onClick={() => reactivate.mutate()} disabled={reactivate.isPending}>
        Reactivate
      </button>
      <FormError error={reactivate.error} shown={[]} />
    </div>
  );
}

/** The URL as text to select, and a button that copies it. */
function CopyText({ text, label }: { text: string; label: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [said, setSaid] = useState<string | null>(null);
  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      // no clipboard outside a secure context: the address is selected for the person to copy
      setSaid('Selected: copy it with Ctrl+C, or by a long press on a phone.');
    }
  };
  return (
    <div className="copy">
      <input ref={input} readOnly value={text} aria-label={label} onFocus={(e) => e.target.select()} />
      <button type="button" className="small" onClick={() => void copy()}>
        Copy
      </button>
      {said && (
        <span role="status" className="muted">
          {said}
        </span>
      )}
    </div>
  );
}

/** Deactivate asks first: what it does, and the message customers will read instead of the payment form. */
function DeactivateForm({ link, onDone }: { link: PaymentLink; onDone: () => void }) {
  const queries = useQueryClient();
  const [message, setMessage] = useState('');
  const deactivate = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/payment-links/{link_id}/deactivate', { params: { path: { link_id: link.link_id } }, body: { message } })),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['payment-links'] });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    deactivate.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Deactivate ${link.title}`} className="confirm">
      <p>
        Deactivate this link? Its page then shows your message instead of the payment form and takes no more payments; payments already under way go on.
      </p>
      <TextField label="Message to customers" name="message" required error={deactivate.error} hint="Shown on the link's page, e.g. “Sold out, thank you”." value={message} onValue={setMessage} />
      <FormError error={deactivate.error} shown={['message']} />
      <div className="actions">
        <button type="submit" className="small danger" disabled={deactivate.isPending}>
          Confirm deactivation
        </button>
        <button type="button" className="small" onClick={onDone} disabled={deactivate.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
