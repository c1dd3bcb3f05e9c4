// The New payment link form (createAdminPaymentLink): title and description, a fixed amount or a range the customer chooses
// in, the currency (of the business's wallets), the methods offered, an optional expiry, limit of completed
// payments, the redirect URL or confirmation message, and the API token whose webhooks the link's payments are notified to:
// a choice among the business's tokens, the only one already chosen. Without a token the page says to create
// one first. The API judges what is typed; its refusals show at the field they name.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link } from '../../router';
import { Field, fieldMessages, FormError, SelectField, TextField } from '../../ui/forms';
import { LoadError, Loading, Notice } from '../../ui/parts';
import { asNumber, PAYMENT_METHODS, utcOf, zoneName } from '../../ui/values';

type Method = (typeof PAYMENT_METHODS)[number];
const METHOD_NAMES: Record<Method, string> = { MOBILE_MONEY: 'Mobile money', CARD: 'Card', BANK: 'Bank', CRYPTO: 'Crypto' };
const FIELDS = ['title', 'description', 'redirect_url', 'amount', 'min_amount', 'max_amount', 'currency', 'payment_methods', 'expires_at', 'completed_limit', 'confirmation_message', 'api_token_id'];

interface Typed {
  title: string;
  description: string;
  redirect: string;
  fixed: boolean;
  amount: string;
  min: string;
  max: string;
  currency: string;
  methods: Method[];
  expires: string;
  limit: string;
  confirmation: string;
  token: string;
}

const BLANK: Typed = { title: '', description: '', redirect: '', fixed: true, amount: '', min: '', max: '', currency: '', methods: ['MOBILE_MONEY'], expires: '', limit: '', confirmation: '', token: '' };

/** What the form sends: the optional fields only when filled in, numbers as typed for the API to judge. */
function bodyOf(t: Typed, currency: string, token: string): Admin['AdminPaymentLinkCreate'] {
  return {
    title: t.title,
    ...(t.description.trim() ? { description: t.description } : {}),
    ...(t.fixed ? { amount: asNumber(t.amount) } : { min_amount: asNumber(t.min), max_amount: asNumber(t.max) }),
    currency,
    payment_methods: t.methods,
    ...(t.expires.trim() ? { expires_at: utcOf(t.expires, false) } : {}),
    ...(t.limit.trim() ? { completed_limit: asNumber(t.limit) } : {}),
    ...(t.redirect.trim() ? { redirect_url: t.redirect.trim() } : {}),
    ...(t.confirmation.trim() ? { confirmation_message: t.confirmation } : {}),
    api_token_id: asNumber(token),
  } as Admin['AdminPaymentLinkCreate'];
}

export function NewPaymentLink({ businessId }: { businessId: number }) {
  // the same reads (and cache entries) as the API tokens page and the New disbursement form
  const tokens = useQuery({
    queryKey: ['tokens', businessId],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/businesses/{business_id}/api-tokens', { params: { path: { business_id: businessId } } })),
  });
  const wallets = useQuery({
    queryKey: ['wallet-settings', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/wallets', { params: { path: { business_id: businessId }, query: { per_page: 100 } } })),
  });
  if (tokens.error || wallets.error) return <LoadError error={tokens.error ?? wallets.error} retry={() => void Promise.all([tokens.refetch(), wallets.refetch()])} />;
  if (!tokens.data || !wallets.data) return <Loading what="your API tokens and wallets" />;
  if (tokens.data.items.length === 0) {
    return (
      <p>
        A payment link takes its payments under one of your API tokens, whose webhook tells your systems about them, and you have none yet.{' '}
        <Link to="/developers">Create an API token first</Link>, then come back here.
      </p>
    );
  }
  return <LinkForm businessId={businessId} tokens={tokens.data.items} currencies={wallets.data.data.map((w) => w.currency)} />;
}

function LinkForm({ businessId, tokens, currencies }: { businessId: number; tokens: Admin['ApiToken'][]; currencies: string[] }) {
  const queries = useQueryClient();
  const [t, set] = useState<Typed>(BLANK);
  const edit = (part: Partial<Typed>) => set({ ...t, ...part });
  const currency = t.currency || currencies[0] || '';
  const token = t.token || (tokens.length === 1 ? String(tokens[0].id) : '');
  const create = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/payment-links', { body: bodyOf(t, currency, token) })),
    onSuccess: async () => {
      set(BLANK);
      await queries.invalidateQueries({ queryKey: ['payment-links'] });
    },
  });
  const error = create.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.reset();
    create.mutate();
  };
  const toggle = (m: Method, on: boolean) => edit({ methods: on ? PAYMENT_METHODS.filter((x) => x === m || t.methods.includes(x)) : t.methods.filter((x) => x !== m) });
  const methodErrors = fieldMessages(error, 'payment_methods');
  const tokenName = (id: string) => {
    const found = tokens.find((k) => String(k.id) === id);
    return found ? `${found.api_key} (webhook ${found.webhook_url})` : 'Choose a token';
  };
  return (
    <form onSubmit={submit} aria-label="New payment link" className="form-grid">
      {create.isSuccess && (
        <div className="wide">
          <Notice>
            Payment link “{create.data.data.title}” created: share <span className="break">{create.data.data.url}</span>
          </Notice>
        </div>
      )}
      <div className="wide">
        <TextField label="Title" name="title" required error={error} hint="What the customer pays for, the heading of the link's page." value={t.title} onValue={(v) => edit({ title: v })} />
      </div>
      <div className="wide">
        <TextField label="Description, optional" name="description" error={error} hint="A line under the title on the link's page." value={t.description} onValue={(v) => edit({ description: v })} />
      </div>
      <fieldset className="field wide">
        <legend>Amount</legend>
        <label className="check">
          <input type="radio" name="amount_kind" checked={t.fixed} onChange={() => edit({ fixed: true })} /> A fixed amount
        </label>
        <label className="check">
          <input type="radio" name="amount_kind" checked={!t.fixed} onChange={() => edit({ fixed: false })} /> The customer chooses, between a minimum and a maximum
        </label>
      </fieldset>
      {t.fixed ? (
        <TextField label="Amount" name="amount" inputMode="decimal" required error={error} value={t.amount} onValue={(v) => edit({ amount: v })} />
      ) : (
        <>
          <TextField label="Minimum amount" name="min_amount" inputMode="decimal" required error={error} value={t.min} onValue={(v) => edit({ min: v })} />
          <TextField label="Maximum amount" name="max_amount" inputMode="decimal" required error={error} value={t.max} onValue={(v) => edit({ max: v })} />
        </>
      )}
      <SelectField label="Currency" name="currency" error={error} options={currencies} value={currency} onValue={(v) => edit({ currency: v })} />
      <fieldset className={methodErrors.length ? 'field wide invalid' : 'field wide'} aria-describedby={methodErrors.length ? 'link-methods-error' : undefined}>
        <legend>Payment methods the customer may choose</legend>
        {PAYMENT_METHODS.map((m) => (
          <label key={m} className="check">
            <input type="checkbox" name="payment_methods" value={m} checked={t.methods.includes(m)} onChange={(e) => toggle(m, e.target.checked)} /> {METHOD_NAMES[m]}
          </label>
        ))}
        {methodErrors.length > 0 && (
          <p className="field-error" id="link-methods-error" data-field="payment_methods">
            {methodErrors.join('; ')}
          </p>
        )}
      </fieldset>
      <TextField
        label={`Expires (${zoneName()}), optional`}
        name="expires_at"
        type="datetime-local"
        className="when"
        error={error}
        hint="Empty: the link does not expire."
        value={t.expires}
        onValue={(v) => edit({ expires: v })}
      />
      <TextField label="Most completed payments, optional" name="completed_limit" inputMode="numeric" error={error} hint="Empty: no limit." value={t.limit} onValue={(v) => edit({ limit: v })} />
      <div className="wide">
        <TextField
          label="Redirect URL, optional"
          name="redirect_url"
          type="url"
          error={error}
          hint="Where the customer goes once the payment is over, told its reference and outcome; or a confirmation message instead."
          value={t.redirect}
          onValue={(v) => edit({ redirect: v })}
        />
      </div>
      <div className="wide">
        <TextField
          label="Confirmation message, optional"
          name="confirmation_message"
          error={error}
          hint="What the customer reads once the payment is over."
          value={t.confirmation}
          onValue={(v) => edit({ confirmation: v })}
        />
      </div>
      <div className="wide">
        <Field label="API token" name="api_token_id" error={error} hint="The link's payments are made under this token: its webhook URL is notified of them, signed with its webhook hash.">
          {(a) => (
            <select {...a} required value={token} onChange={(e) => edit({ token: e.target.value })}>
              {[...(tokens.length === 1 ? [] : ['']), ...tokens.map((k) => String(k.id))].map((id) => (
                <option key={id} value={id}>
                  {tokenName(id)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="wide">
        <FormError error={error} shown={FIELDS} />
        <button type="submit" disabled={create.isPending}>
          Create payment link
        </button>
      </div>
    </form>
  );
}
