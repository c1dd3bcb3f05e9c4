// Sign-in. Until people have their own accounts, an operator uses the operator key and a merchant
// an API token's key and secret (exchanged for a one-hour access token).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { admin, merchant, unwrap } from '../api';
import { signIn, signOutReason } from '../session';
import { FormError, TextField } from '../ui/forms';
import { Notice } from '../ui/parts';

const MERCHANT_TOKEN_SECONDS = 3600;

export function SignIn() {
  const [kind, setKind] = useState<'operator' | 'merchant'>('operator');
  const why = signOutReason();
  return (
    <main id="main" className="signin">
      <h1>Sign in to PayCollect</h1>
      {why && <Notice>{why}</Notice>}
      <div role="radiogroup" aria-label="Sign in as" className="segmented">
        <label>
          <input type="radio" name="kind" checked={kind === 'operator'} onChange={() => setKind('operator')} /> Operator
        </label>
        <label>
          <input type="radio" name="kind" checked={kind === 'merchant'} onChange={() => setKind('merchant')} /> Merchant
        </label>
      </div>
      {kind === 'operator' ? <OperatorSignIn /> : <MerchantSignIn />}
    </main>
  );
}

function OperatorSignIn() {
  const [key, setKey] = useState('');
  const attempt = useMutation({
    mutationFn: async () => {
      await unwrap(admin.GET('/v1/admin/businesses', { params: { query: { per_page: 1 } }, headers: { Authorization: `Bearer ${key.trim()}` } }));
      signIn({ kind: 'operator', secret: key.trim() });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    attempt.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Operator sign-in">
      <TextField
        label="Operator key"
        name="operator_key"
        type="password"
        autoComplete="off"
        required
        error={attempt.error}
        value={key}
        onValue={setKey}
        hint="Printed once on the first start of the service and kept in DATA_DIR/operator-key (or the OPERATOR_API_KEY you set)."
      />
      <FormError error={attempt.error} />
      <button type="submit" disabled={attempt.isPending}>
        Sign in
      </button>
    </form>
  );
}

function MerchantSignIn() {
  const [apiKey, setApiKey] = useState('');
  const [secret, setSecret] = useState('');
  const attempt = useMutation({
    mutationFn: async () => {
      const body = await unwrap(
        merchant.POST('/v1/auth/token', { params: { header: { 'Secret-Key': secret.trim() } }, body: { api_key: apiKey.trim(), expires_in: MERCHANT_TOKEN_SECONDS } }),
      );
      signIn({ kind: 'merchant', secret: body.data.token, api_key: apiKey.trim(), expires: body.data.expires });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    attempt.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Merchant sign-in">
      <TextField label="API key" name="api_key" autoComplete="username" required error={attempt.error} value={apiKey} onValue={setApiKey} hint="Starts with pk_sandbox_ or pk_live_." />
      <TextField label="API secret" name="Secret-Key" type="password" autoComplete="current-password" required error={attempt.error} value={secret} onValue={setSecret} />
      <FormError error={attempt.error} shown={['api_key', 'Secret-Key']} />
      <button type="submit" disabled={attempt.isPending}>
        Sign in
      </button>
    </form>
  );
}
