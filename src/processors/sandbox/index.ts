// The sandbox simulator: no money moves. Designated phone numbers answer after a delay; cards, banks
// and crypto are decided on the hosted pages by the designated card or the customer's click.
import type { FinalStatus } from '../../domain/collection';
import type { Plan, PlanInput, Processor } from '../types';

export interface SandboxSettings {
  mmSuccess: string[];
  mmFailure: string[];
  mmDelayMs: number;
}

const INSTITUTIONS = {
  MOBILE_MONEY: 'PayCollect Sandbox Mobile Money',
  CARD: 'PayCollect Sandbox Card Acquirer',
  BANK: 'PayCollect Sandbox Bank',
  CRYPTO: 'PayCollect Sandbox Crypto',
} as const;

/** The simulator's own status words, mapped explicitly. */
const VENDOR_STATUS: Record<string, FinalStatus> = {
  SUCCESSFUL: 'COMPLETED',
  DECLINED: 'FAILED',
  ABORTED: 'CANCELLED',
};

function sandboxOutcome(vendorStatus: string): FinalStatus | null {
  return VENDOR_STATUS[vendorStatus] ?? null;
}

export function sandboxProcessor(settings: SandboxSettings): Processor {
  return {
    serviceType: 'sandbox',
    paymentMethods: ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'],
    credentials: [],
    connector: null,
    // the API's two decimals in every currency, as before live processors existed
    amountDecimals: () => 2,
    plan(input: PlanInput): Plan {
      const institutionName = INSTITUTIONS[input.paymentMethod];
      if (input.paymentMethod !== 'MOBILE_MONEY') {
        return { institutionName, instructions: null, needsPaymentPage: true, scheduledReport: null };
      }
      const phone = input.accountNumber ?? '';
      const instructions = [
        { step: '1', description: `A payment prompt for ${input.amountText} ${input.currency} has been sent to ${phone}.` },
        { step: '2', description: 'The customer approves it by entering their mobile money PIN on the phone.' },
        { step: '3', description: 'The result is sent to your webhook; you can also query the collection by gateway_reference.' },
      ];
      const vendorStatus = settings.mmSuccess.includes(phone) ? 'SUCCESSFUL' : settings.mmFailure.includes(phone) ? 'DECLINED' : null;
      const outcome = vendorStatus ? sandboxOutcome(vendorStatus) : null;
      return {
        institutionName,
        instructions,
        needsPaymentPage: false,
        scheduledReport: outcome ? { outcome, delayMs: settings.mmDelayMs } : null,
      };
    },
  };
}
