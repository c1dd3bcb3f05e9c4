// A payment link as asked for, checked and turned into the row's values: every broken rule is reported at
// once, and nothing is written while one is. The contract's schema has already refused unknown methods,
// more than three custom fields and malformed values; these are the rules between fields.
import type { CustomField } from '../api-records/payment-link';
import type { PaymentMethod } from '../domain/collection';
import { amountOrError } from '../domain/money';
import type { FieldError } from '../errors';
import type { components } from '../../generated/merchant-api';

export type PaymentLinkCreate = components['schemas']['PaymentLinkCreate'];

/** The new link's values, once its input holds together. */
export interface LinkPlan {
  title: string;
  description: string | null;
  currency: string;
  amountMinor: bigint | null;
  minAmountMinor: bigint | null;
  maxAmountMinor: bigint | null;
  paymentMethods: PaymentMethod[];
  expiresAt: Date | null;
  completedLimit: number | null;
  customFields: CustomField[];
  redirectUrl: string | null;
  confirmationMessage: string | null;
}

function minorOf(field: string, amount: number | undefined, errors: FieldError[]): bigint | null {
  if (amount === undefined) return null;
  const minor = amountOrError(amount, field);
  if (typeof minor === 'bigint') return minor;
  errors.push(minor);
  return null;
}

/** The amount rules: a fixed amount or a range, one kind only, the range the right way round. */
function amountErrors(body: PaymentLinkCreate, min: bigint | null, max: bigint | null): FieldError[] {
  const fixed = body.amount !== undefined;
  const ranged = body.min_amount !== undefined || body.max_amount !== undefined;
  if (fixed && ranged) return [{ field: 'amount', message: 'give either amount or min_amount and max_amount, not both kinds' }];
  if (!fixed && !ranged) return [{ field: 'amount', message: 'give amount, or min_amount and max_amount for an amount the customer chooses' }];
  if (ranged && (body.min_amount === undefined || body.max_amount === undefined)) {
    return [{ field: body.min_amount === undefined ? 'min_amount' : 'max_amount', message: 'min_amount and max_amount go together' }];
  }
  if (min !== null && max !== null && min > max) return [{ field: 'min_amount', message: 'must not be above max_amount' }];
  return [];
}

/** The link's values, or every rule its input breaks. */
export function planLink(body: PaymentLinkCreate, now: Date): { plan: LinkPlan } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const amountMinor = minorOf('amount', body.amount, errors);
  const minAmountMinor = minorOf('min_amount', body.min_amount, errors);
  const maxAmountMinor = minorOf('max_amount', body.max_amount, errors);
  errors.push(...amountErrors(body, minAmountMinor, maxAmountMinor));
  const expiresAt = body.expires_at === undefined ? null : new Date(body.expires_at);
  if (expiresAt && expiresAt.getTime() <= now.getTime()) errors.push({ field: 'expires_at', message: 'must be in the future' });
  if (body.redirect_url !== undefined && body.confirmation_message !== undefined) {
    errors.push({ field: 'confirmation_message', message: 'give redirect_url or confirmation_message, not both' });
  }
  const labels = (body.custom_fields ?? []).map((f) => f.label.trim().toLowerCase());
  if (new Set(labels).size !== labels.length) errors.push({ field: 'custom_fields', message: 'labels must differ' });
  if (errors.length > 0) return { errors };
  return {
    plan: {
      title: body.title,
      description: body.description ?? null,
      currency: body.currency,
      amountMinor,
      minAmountMinor,
      maxAmountMinor,
      paymentMethods: body.payment_methods as PaymentMethod[],
      expiresAt,
      completedLimit: body.completed_limit ?? null,
      customFields: (body.custom_fields ?? []).map((f) => ({ label: f.label, required: f.required })),
      redirectUrl: body.redirect_url ?? null,
      confirmationMessage: body.confirmation_message ?? null,
    },
  };
}
