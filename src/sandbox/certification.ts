// Go-live evidence: which designated sandbox scenarios a business has run (docs/contract/operator.md).
import type { Config } from '../config';
import type { Db } from '../db';
import type { CollectionRow } from '../domain/collection';
import { maskPan } from '../domain/card';
import { apiTimeOrNull } from '../domain/time';
import { AppError } from '../errors';

export const SCENARIOS = [
  'MOBILE_MONEY_SUCCESS',
  'MOBILE_MONEY_FAILURE',
  'CARD_3DS_SUCCESS',
  'CARD_3DS_FAILURE',
  'BANK',
  'CRYPTO',
  'WEBHOOK_ACKNOWLEDGED',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The scenario a final collection demonstrates, if any. */
export function scenarioOf(config: Config, row: CollectionRow): Scenario | null {
  const { status, payment_method: method } = row;
  if (method === 'MOBILE_MONEY') {
    const phone = row.account_number ?? '';
    if (status === 'COMPLETED' && config.sandboxMmSuccess.includes(phone)) return 'MOBILE_MONEY_SUCCESS';
    if (status === 'FAILED' && config.sandboxMmFailure.includes(phone)) return 'MOBILE_MONEY_FAILURE';
    return null;
  }
  if (method === 'CARD') {
    if (status === 'COMPLETED' && row.card_masked === maskPan(config.sandboxCard3dsSuccess)) return 'CARD_3DS_SUCCESS';
    if (status === 'FAILED' && row.card_masked === maskPan(config.sandboxCard3dsFailure)) return 'CARD_3DS_FAILURE';
    return null;
  }
  return status === 'PENDING' ? null : method;
}

/**
 * The scenario a move records, if any: in the sandbox only, the first run of each scenario is kept (the
 * move's write inserts it with the state change, collections/sql/move.sql).
 */
export function scenarioRecorded(config: Config, row: CollectionRow): Scenario | null {
  return config.appEnv === 'sandbox' ? scenarioOf(config, row) : null;
}

export async function certificationOf(db: Db, businessId: number) {
  const business = await db.oneOrNone('SELECT id FROM businesses WHERE id = $1', [businessId]);
  if (!business) throw new AppError('NOT_FOUND', 'No business with this id');
  const events = await db.any<{ scenario: Scenario; gateway_reference: string; at: Date }>(
    'SELECT scenario, gateway_reference, at FROM certification_events WHERE business_id = $1',
    [businessId],
  );
  const acked = await db.oneOrNone<{ gateway_reference: string; at: Date }>(
    `SELECT c.gateway_reference, n.delivered_at AS at FROM notifications n JOIN collections c ON c.id = n.collection_id
     WHERE c.business_id = $1 AND n.delivered_at IS NOT NULL ORDER BY n.delivered_at LIMIT 1`,
    [businessId],
  );
  const found = new Map(events.map((e) => [e.scenario, e]));
  if (acked) found.set('WEBHOOK_ACKNOWLEDGED', { scenario: 'WEBHOOK_ACKNOWLEDGED', ...acked });
  const scenarios = SCENARIOS.map((scenario) => {
    const e = found.get(scenario);
    return { scenario, passed: !!e, gateway_reference: e?.gateway_reference ?? null, at: apiTimeOrNull(e?.at) };
  });
  return { business_id: businessId, complete: scenarios.every((s) => s.passed), scenarios };
}
