// The operator's service-wide pages: market rates (their watch in Rates.tsx), failing webhooks and the card key.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import { Link } from '../../router';
import { FormError, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Notice, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { asNumber } from '../../ui/values';
import { RateWatch, WATCH_KEY } from './Rates';

export function FxRates() {
  const queries = useQueryClient();
  const [f, setF] = useState({ base: '', quote: '', rate: '' });
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  const save = useMutation({
    mutationFn: () => unwrap(admin.PUT('/v1/admin/fx-rates', { body: { base: f.base.trim().toUpperCase(), quote: f.quote.trim().toUpperCase(), rate: asNumber(f.rate) } })),
    onSuccess: async () => {
      setF({ base: '', quote: '', rate: '' });
      await queries.invalidateQueries({ queryKey: WATCH_KEY });
      await queries.invalidateQueries({ queryKey: ['fx-rates'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <>
      <h1>Market rates</h1>
      <p>
        1 unit of the base currency is worth “rate” units of the quote currency. Collections accepted afterwards use the new rate; a stale rate converts nothing (the request is refused), and a feed's jump beyond the guard waits for
        a decision here.
      </p>
      <RateWatch />
      <Guard need="operate">
        <form onSubmit={submit} aria-label="Set a market rate" className="inline-form">
          <TextField label="Base" name="base" maxLength={3} required error={save.error} value={f.base} onValue={set('base')} />
          <TextField label="Quote" name="quote" maxLength={3} required error={save.error} value={f.quote} onValue={set('quote')} />
          <TextField label="Rate" name="rate" inputMode="decimal" required error={save.error} value={f.rate} onValue={set('rate')} />
          <button type="submit" disabled={save.isPending}>
            Set rate
          </button>
          <FormError error={save.error} shown={['base', 'quote', 'rate']} />
        </form>
      </Guard>
    </>
  );
}

export function FailingWebhooks() {
  const { list, pages } = useCursorList(['failing-webhooks'], (cursor) => unwrapPage(admin.GET('/v1/admin/webhooks/failing', { params: { query: { cursor, per_page: 25 } } })));
  return (
    <>
      <h1>Failing webhooks</h1>
      <p>Merchant webhooks with notifications not yet acknowledged, oldest first. Deliveries keep being retried on the schedule; tell the merchant what their endpoint answers.</p>
      {list.isPending && <Loading what="failing webhooks" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>Every webhook is delivering.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          rows={list.data.items}
          rowKey={(w) => w.api_token_id}
          columns={[
            { head: 'Business', cell: (w) => <Link to={`/businesses/${w.business_id}`}>#{w.business_id}</Link> },
            { head: 'Webhook URL', className: 'break', cell: (w) => w.webhook_url },
            { head: 'Undelivered', num: true, cell: (w) => w.undelivered },
            { head: 'Oldest', cell: (w) => <Time at={w.oldest_undelivered_at} /> },
            { head: 'Last error', cell: (w) => <>{w.last_error ?? 'no attempt yet'} {w.last_attempt_at && <Time at={w.last_attempt_at} />}</> },
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

export function CardKeys() {
  const rotate = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/card-keys/rotate', {})) });
  const key = rotate.data?.data;
  return (
    <>
      <h1>Card encryption key</h1>
      <p>
        Merchants encrypt direct card payments with the public key of <code>GET /v1/public-key</code>. Rotating makes a new key pair; the previous key keeps decrypting for a grace period so cards encrypted with a recently downloaded key still
        work.
      </p>
      {key && (
        <Notice>
          New key <code>{key.key_id}</code> in use since <Time at={key.created_at} />.{' '}
          {key.previous_key_id && (
            <>
              The previous key <code>{key.previous_key_id}</code> decrypts until <Time at={key.previous_key_expires_at} />.
            </>
          )}
        </Notice>
      )}
      <FormError error={rotate.error} />
      <button type="button" disabled={rotate.isPending} onClick={() => window.confirm('Rotate the card key now?') && rotate.mutate()}>
        Rotate the card key
      </button>
    </>
  );
}
