// One interface for every processor (hyperswitch connectors, Medusa payment providers): stateless,
// mapping its own vendor statuses to ours explicitly.
import type { FinalStatus, Instruction, PaymentMethod } from '../domain/collection';

export interface InitiateInput {
  paymentMethod: PaymentMethod;
  accountNumber: string | null;
  amountText: string;
  currency: string;
  gatewayReference: string;
  /** masked card number of a direct card payment */
  cardMasked: string | null;
}

export interface Initiated {
  institutionName: string | null;
  instructions: Instruction[] | null;
  /** the payment continues on the hosted pages */
  needsPaymentPage: boolean;
  /** a report the processor will send by itself, after delayMs (the sandbox's simulated customer) */
  scheduledReport: { vendorStatus: string; delayMs: number } | null;
}

export interface Processor {
  readonly serviceType: string;
  initiate(input: InitiateInput): Initiated;
  /** the vendor's status word -> our final status, or null for a status that changes nothing */
  mapStatus(vendorStatus: string): FinalStatus | null;
}
