// What a new disbursement will do, shown while the form is filled in and before it is sent: the wallet's
// available balance, the fee (the business's disbursement fee, computed as the server computes it), what
// leaves the wallet and what stays available, and whether it waits for another owner's approval (strictly
// above the wallet's threshold). The server decides in the end; this only says beforehand what it will decide.
import { moneyText } from '../../../../src/domain/currencies';
import { disbursementFee, needsApproval } from '../../../../src/domain/disbursement';
import { toMinor } from '../../../../src/domain/money';
import { amountMinorOf } from '../../ui/amounts';
import type { Admin } from '../../api';

export interface PayoutTerms {
  currency: string;
  /** the wallet's available balance, as the API gives it (two decimals) */
  available: number | null;
  threshold: number | null;
  business: Admin['Business'] | undefined;
}

/** True when a disbursement of `amount` (as typed) would wait for another owner's approval. */
export function waitsForApproval(amount: string, threshold: number | null): boolean {
  const minor = amountMinorOf(amount);
  return minor !== null && needsApproval(minor, threshold === null ? null : toMinor(threshold));
}

export function PayoutPreview({ amount, terms }: { amount: string; terms: PayoutTerms }) {
  const { currency, available, threshold, business } = terms;
  const money = (minor: bigint) => moneyText(minor, currency);
  const minor = amountMinorOf(amount);
  const availableMinor = available === null ? null : toMinor(available);
  const fee = minor !== null && business ? disbursementFee(minor, { percent: String(business.disbursement_fee_percent), fixedMinor: toMinor(business.disbursement_fee_fixed) }) : null;
  const out = minor !== null && fee !== null ? minor + fee : null;
  return (
    <div role="group" aria-label="What this payout does" className="confirm wide">
      <p>
        Available in the {currency} wallet: <strong>{availableMinor === null ? 'unknown' : money(availableMinor)}</strong>.
      </p>
      {minor === null ? (
        <p>Type an amount to see the fee and what leaves the wallet.</p>
      ) : (
        <p>
          The payee receives <strong>{money(minor)}</strong>; the fee is {fee === null ? 'not known yet' : <strong>{money(fee)}</strong>}
          {out !== null && (
            <>
              , so <strong>{money(out)}</strong> leaves the wallet
              {availableMinor !== null && (out <= availableMinor ? <> and {money(availableMinor - out)} stays available</> : <>: more than is available, so PayCollect will refuse it</>)}
            </>
          )}
          .
        </p>
      )}
      <p>
        {threshold === null
          ? 'This wallet has no approval threshold: a payout is sent at once.'
          : minor !== null && waitsForApproval(amount, threshold)
            ? <>Above this wallet&apos;s approval threshold ({money(toMinor(threshold))}): it <strong>needs another owner&apos;s approval</strong> before it is sent.</>
            : <>Payouts above {money(toMinor(threshold))} need another owner&apos;s approval; up to that they are sent at once.</>}
      </p>
    </div>
  );
}
