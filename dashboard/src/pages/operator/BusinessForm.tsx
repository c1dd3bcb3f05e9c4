// The terms of a business account: name, wallet currency, reserve, card settlement, fee bearer and
// fees per payment method. Used to create a business and to edit one.
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Admin } from '../../api';
import { ApiError } from '../../api';
import { Field, FormError, SelectField, TextField } from '../../ui/forms';
import { asNumber, PAYMENT_METHODS } from '../../ui/values';

export type Terms = Admin['BusinessCreate'];
type Method = (typeof PAYMENT_METHODS)[number];
type FeeText = Record<Method, { percent: string; fixed: string }>;

function feeText(fees: Admin['FeeRule'][] = []): FeeText {
  const out = {} as FeeText;
  for (const m of PAYMENT_METHODS) {
    const rule = fees.find((f) => f.payment_method === m);
    out[m] = { percent: rule ? String(rule.percent) : '', fixed: rule ? String(rule.fixed) : '' };
  }
  return out;
}

/** Methods with a percent or a fixed part typed; a method left blank is free. */
function feeRules(text: FeeText): Admin['FeeRule'][] {
  return PAYMENT_METHODS.filter((m) => text[m].percent.trim() !== '' || text[m].fixed.trim() !== '').map((m) => ({
    payment_method: m,
    percent: asNumber(text[m].percent || '0'),
    fixed: asNumber(text[m].fixed || '0'),
  }));
}

/** The API names fee errors by position in the list sent (`fees.1.percent`); show them by method. */
function feeErrors(error: unknown, sent: Admin['FeeRule'][]): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.fields
    .filter((f) => f.field === 'fees' || f.field.startsWith('fees.'))
    .map((f) => {
      const [, index, part] = f.field.split('.');
      const method = sent[Number(index)]?.payment_method;
      return method ? `${method}${part ? ' ' + part : ''}: ${f.message}` : `fees: ${f.message}`;
    });
}

interface Props {
  initial?: Admin['Business'];
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (terms: Terms) => void;
}

export function BusinessForm({ initial, submitLabel, pending, error, onSubmit }: Props) {
  const [name, setName] = useState(initial?.name ?? '');
  const [currency, setCurrency] = useState(initial?.default_currency ?? '');
  const [reservePercent, setReservePercent] = useState(String(initial?.rolling_reserve_percent ?? 0));
  const [reserveMonths, setReserveMonths] = useState(String(initial?.rolling_reserve_months ?? 0));
  const [settlementDays, setSettlementDays] = useState(String(initial?.card_settlement_days ?? 0));
  const [bearer, setBearer] = useState<Admin['FeeBearer']>(initial?.fee_bearer ?? 'merchant');
  const [fees, setFees] = useState(feeText(initial?.fees));
  const [sentFees, setSentFees] = useState<Admin['FeeRule'][]>([]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const rules = feeRules(fees);
    setSentFees(rules);
    onSubmit({
      name,
      default_currency: currency.trim().toUpperCase(),
      rolling_reserve_percent: asNumber(reservePercent),
      rolling_reserve_months: asNumber(reserveMonths),
      card_settlement_days: asNumber(settlementDays),
      fee_bearer: bearer,
      fees: rules,
    });
  };
  const setFee = (m: Method, part: 'percent' | 'fixed', v: string) => setFees({ ...fees, [m]: { ...fees[m], [part]: v } });
  const feeMessages = feeErrors(error, sentFees);

  return (
    <form onSubmit={submit} aria-label="Business terms" className="form-grid">
      <TextField label="Business name" name="name" required error={error} value={name} onValue={setName} />
      <TextField label="Default wallet currency" name="default_currency" required maxLength={3} error={error} value={currency} onValue={setCurrency} hint="ISO 4217 code, e.g. UGX. Collections in other currencies are converted to it." />
      <TextField label="Rolling reserve (%)" name="rolling_reserve_percent" inputMode="decimal" error={error} value={reservePercent} onValue={setReservePercent} />
      <TextField label="Reserve held for (months)" name="rolling_reserve_months" inputMode="numeric" error={error} value={reserveMonths} onValue={setReserveMonths} />
      <TextField label="Card settlement (days)" name="card_settlement_days" inputMode="numeric" error={error} value={settlementDays} onValue={setSettlementDays} />
      <SelectField label="Fee paid by" name="fee_bearer" error={error} options={['merchant', 'customer']} value={bearer} onValue={(v) => setBearer(v as Admin['FeeBearer'])} />
      <fieldset className="fees wide">
        <legend>Fees per payment method (blank = free)</legend>
        {PAYMENT_METHODS.map((m) => (
          <div className="fee-row" key={m}>
            <span>{m}</span>
            <Field label={`${m} percent`} name={`fee-${m}-percent`} error={null}>
              {(a) => <input {...a} inputMode="decimal" value={fees[m].percent} onChange={(e) => setFee(m, 'percent', e.target.value)} />}
            </Field>
            <Field label={`${m} fixed`} name={`fee-${m}-fixed`} error={null}>
              {(a) => <input {...a} inputMode="decimal" value={fees[m].fixed} onChange={(e) => setFee(m, 'fixed', e.target.value)} />}
            </Field>
          </div>
        ))}
        {feeMessages.length > 0 && (
          <p className="field-error" data-field="fees">
            {feeMessages.join('; ')}
          </p>
        )}
      </fieldset>
      <div className="wide">
        <FormError error={error} shown={['name', 'default_currency', 'rolling_reserve_percent', 'rolling_reserve_months', 'card_settlement_days', 'fee_bearer', 'fees']} />
        <button type="submit" disabled={pending}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
