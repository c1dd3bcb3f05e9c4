// The designated sandbox test values as data, each with the states and notifications it produces.
import type { components } from '../../generated/merchant-api';
import type { Config } from '../config';
import { disbursementScenarios } from '../processors/sandbox/payouts';
import { refundScenarios } from '../processors/sandbox/refunds';
import { DISPUTING_CARDS } from '../domain/card';

type Scenario = Omit<components['schemas']['SandboxScenario'], 'transaction_type'>;

/** The collections' designated values, then the refunds' and the disbursements' (src/processors/sandbox/refunds.ts, payouts.ts). */
export function sandboxScenarios(c: Config): components['schemas']['SandboxScenario'][] {
  return [...collectionScenarios(c).map((s) => ({ ...s, transaction_type: 'collection' as const })), ...refundScenarios(), ...disbursementScenarios()];
}

function collectionScenarios(c: Config): Scenario[] {
  const delay = `${c.sandboxMmDelayMs / 1000} s`;
  type Sequence = Pick<Scenario, 'states' | 'notifications'>;
  const completed: Sequence = { states: ['PENDING', 'COMPLETED'], notifications: [{ sequence: 1, transaction_status: 'COMPLETED' }] };
  const failed: Sequence = { states: ['PENDING', 'FAILED'], notifications: [{ sequence: 1, transaction_status: 'FAILED' }] };
  return [
    ...c.sandboxMmSuccess.map((value): Scenario => ({
      name: 'MOBILE_MONEY_SUCCESS', payment_method: 'MOBILE_MONEY', value, outcome: 'COMPLETED',
      description: `The simulated customer approves the prompt after ${delay}; the collection completes and the wallet is credited.`,
      ...completed,
    })),
    ...c.sandboxMmFailure.map((value): Scenario => ({
      name: 'MOBILE_MONEY_FAILURE', payment_method: 'MOBILE_MONEY', value, outcome: 'FAILED',
      description: `The simulated customer declines the prompt after ${delay}; the collection fails and no money moves.`,
      ...failed,
    })),
    {
      name: 'MOBILE_MONEY_NO_ANSWER', payment_method: 'MOBILE_MONEY', value: 'any other phone number', outcome: 'EXPIRED',
      description: `Nobody answers the prompt: the collection stays PENDING for ${c.pendingTtlSeconds} s, then expires (or drive it with the simulate operation).`,
      states: ['PENDING', 'EXPIRED'], notifications: [{ sequence: 1, transaction_status: 'EXPIRED' }],
    },
    {
      name: 'CARD_3DS_SUCCESS', payment_method: 'CARD', value: c.sandboxCard3dsSuccess, outcome: 'COMPLETED',
      description: 'The 3-D Secure challenge on payment_url succeeds; the collection completes.',
      ...completed,
    },
    {
      name: 'CARD_3DS_FAILURE', payment_method: 'CARD', value: c.sandboxCard3dsFailure, outcome: 'FAILED',
      description: 'The 3-D Secure challenge on payment_url fails; the collection fails.',
      ...failed,
    },
    {
      name: 'CARD_DISPUTE_LOST', payment_method: 'CARD', value: DISPUTING_CARDS.lost, outcome: 'COMPLETED',
      description:
        'The challenge succeeds and the collection completes; the cardholder\'s bank then disputes it at once (the amount held from available). Unanswered, it is accepted for you at its deadline and the hold debited; accept it first (whole or in part) to be debited what you accept. Move past the deadline with POST /v1/sandbox/clock.',
      ...completed,
    },
    {
      name: 'CARD_DISPUTE_WON', payment_method: 'CARD', value: DISPUTING_CARDS.won, outcome: 'COMPLETED',
      description:
        'The challenge succeeds and the collection completes; the cardholder\'s bank then disputes it at once (the amount held from available). At its deadline the bank decides for you: the dispute is won and the hold released. Accepting it first debits what you accept. Move past the deadline with POST /v1/sandbox/clock.',
      ...completed,
    },
    {
      name: 'BANK_APPROVE', payment_method: 'BANK', value: 'any account_number', outcome: 'COMPLETED',
      description: 'The customer approves the transfer on the online-banking page at payment_url (or cancels it: CANCELLED).',
      ...completed,
    },
    {
      name: 'CRYPTO_DEPOSIT', payment_method: 'CRYPTO', value: 'any account_number (the paying wallet address)', outcome: 'COMPLETED',
      description: 'The customer confirms the deposit on the page at payment_url (or cancels it: CANCELLED).',
      ...completed,
    },
  ];
}
