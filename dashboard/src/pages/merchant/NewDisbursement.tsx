// The New disbursement form of a business's owner (createAdminDisbursement): amount, the wallet's
// currency (from the business's wallets), method, the payee's account (and bank for BANK), a merchant
// reference filled in with a fresh suggestion, a narration, and the owner's current authenticator code,
// which stands in for the API token's secret. Before it is sent the page shows the balance, the fee, what
// leaves the wallet and whether it needs approval, and the button says which: "Request payout" (it waits for
// another owner) or "Send payout". The API's refusals show at the field they concern; once
// accepted, the disbursement's own page opens (PENDING_APPROVAL when above the approval threshold).
// An owner without an authenticator is told to set one up first: the server would refuse the form.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, ApiError, unwrap } from '../../api';
import { Link, navigate } from '../../router';
import { useSession } from '../../session';
import { FormError, SelectField, TextField } from '../../ui/forms';
import { LoadError, Loading } from '../../ui/parts';
import { suggestedReference } from '../../ui/reference';
import { PayoutPreview, waitsForApproval } from './PayoutPreview';
import type { PayoutTerms } from './PayoutPreview';

const METHODS = ['MOBILE_MONEY', 'BANK'] as const;
const METHOD_NAMES: Record<string, string> = { MOBILE_MONEY: 'Mobile money', BANK: 'Bank account' };
const FIELDS = ['amount', 'currency', 'payment_method', 'account_number', 'bank_code', 'account_name', 'merchant_reference', 'narration', 'code'];

/** Refusals the API names no field for, at the field they are about. */
const AT_FIELD: Record<string, string> = {
  INSUFFICIENT_FUNDS: 'amount',
  LIMIT_EXCEEDED: 'amount',
  DUPLICATE_MERCHANT_REFERENCE: 'merchant_reference',
  UNAUTHORIZED: 'code',
};

function atTheirField(error: unknown): unknown {
  const field = error instanceof ApiError && error.fields.length === 0 ? AT_FIELD[error.code] : undefined;
  return field && error instanceof ApiError ? new ApiError(error.status, error.code, error.message, [{ field, message: error.message }]) : error;
}

export function NewDisbursement({ businessId }: { businessId: number }) {
  const { user } = useSession();
  return (
    <>
      <h1>New disbursement</h1>
      <p>
        <Link to="/disbursements">Back to disbursements</Link>
      </p>
      {user.totp_enabled ? (
        <DisbursementForm businessId={businessId} />
      ) : (
        <p>
          A disbursement from the dashboard needs a code from your authenticator app, as the API needs the token&apos;s secret. <Link to="/account">Set one up in Account</Link>{' '}
          first.
        </p>
      )}
    </>
  );
}

function DisbursementForm({ businessId }: { businessId: number }) {
  const queries = useQueryClient();
  const wallets = useQuery({
    queryKey: ['wallet-settings', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/wallets', { params: { path: { business_id: businessId }, query: { per_page: 100 } } })),
  });
  // for the preview: the balance, the business's disbursement fee; a failed read leaves it unknown, the form still works
  const balances = useQuery({
    queryKey: ['balances', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/balances', { params: { path: { business_id: businessId } } })),
  });
  const business = useQuery({ queryKey: ['business', businessId], queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}', { params: { path: { business_id: businessId } } })) });
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('');
  const [method, setMethod] = useState<(typeof METHODS)[number]>('MOBILE_MONEY');
  const [accountNumber, setAccountNumber] = useState('');
  const [bankCode, setBankCode] = useState('');
  const [accountName, setAccountName] = useState('');
  const [reference, setReference] = useState(() => suggestedReference('DASH'));
  const [narration, setNarration] = useState('');
  const [code, setCode] = useState('');
  const currencies = wallets.data?.data.map((w) => w.currency) ?? [];
  const chosen = currency || currencies[0] || '';
  const ask = useMutation({
    mutationFn: () =>
      unwrap(
        admin.POST('/v1/admin/disbursements', {
          body: {
            amount: Number(amount.trim()),
            currency: chosen,
            payment_method: method,
            account_number: accountNumber.trim(),
            ...(method === 'BANK' ? { bank_code: bankCode.trim() } : {}),
            account_name: accountName,
            merchant_reference: reference.trim(),
            ...(narration.trim() === '' ? {} : { narration }),
            code: code.trim(),
          },
        }),
      ),
    onSuccess: async (answer) => {
      await queries.invalidateQueries({ queryKey: ['disbursements'] });
      navigate(`/disbursements/${answer.data.gateway_reference}`);
    },
    // a code is good once: a refused request wants the next one
    onError: () => setCode(''),
  });
  if (wallets.isPending) return <Loading what="your wallets" />;
  if (wallets.error) return <LoadError error={wallets.error} retry={() => wallets.refetch()} />;
  if (currencies.length === 0) return <p>Your business has no wallet to pay from yet.</p>;
  const error = atTheirField(ask.error);
  const terms: PayoutTerms = {
    currency: chosen,
    available: balances.data?.data.find((b) => b.currency === chosen)?.available_balance ?? null,
    threshold: wallets.data?.data.find((w) => w.currency === chosen)?.disbursement_approval_threshold ?? null,
    business: business.data?.data,
  };
  const waits = waitsForApproval(amount, terms.threshold);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New disbursement" className="form-grid">
      <TextField label="Amount" name="amount" inputMode="decimal" required error={error} hint="What the payee receives; the fee is taken from the wallet on top." value={amount} onValue={setAmount} />
      <SelectField label="Wallet currency" name="currency" error={error} options={currencies} value={chosen} onValue={setCurrency} />
      <SelectField label="Method" name="payment_method" error={error} options={METHODS} optionName={(m) => METHOD_NAMES[m]} value={method} onValue={(m) => setMethod(m as (typeof METHODS)[number])} />
      <TextField
        label={method === 'BANK' ? 'Account number' : 'Phone number'}
        name="account_number"
        required
        error={error}
        hint={method === 'BANK' ? undefined : 'Country code first, no +: 256772123456'}
        value={accountNumber}
        onValue={setAccountNumber}
      />
      {method === 'BANK' && <TextField label="Bank code" name="bank_code" required error={error} value={bankCode} onValue={setBankCode} />}
      <TextField label="Account name" name="account_name" required error={error} value={accountName} onValue={setAccountName} />
      <TextField label="Merchant reference" name="merchant_reference" required error={error} hint="Your own reference; sending the same one again never pays twice." value={reference} onValue={setReference} />
      <TextField label="Narration" name="narration" error={error} value={narration} onValue={setNarration} />
      <PayoutPreview amount={amount} terms={terms} />
      <TextField label="Authenticator code" name="code" inputMode="numeric" autoComplete="one-time-code" required error={error} hint="The 6-digit code your authenticator app shows now." value={code} onValue={setCode} />
      <div className="wide">
        <FormError error={error} shown={FIELDS} />
        <button type="submit" disabled={ask.isPending}>
          {waits ? 'Request payout' : 'Send payout'}
        </button>
      </div>
    </form>
  );
}
