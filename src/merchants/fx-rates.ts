// Market rates (docs/contract/money.md): one per pair, listed by pair; set here by the operator (source
// 'operator', as_of the time set), or by a daily feed (src/rates/), which never replaces the operator's.
import type { Base } from '../base';
import type { Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { fxRateRecord } from '../api-records/merchant';
import type { FxRateRecord, FxRateRow } from '../api-records/merchant';
import { mapPage, RATE_DECIMALS, rateErrors, throwIfAny } from './inputs';

export class FxRateService {
  constructor(readonly s: Base) {}

  async setFxRate(base: string, quote: string, rate: number): Promise<FxRateRecord> {
    throwIfAny(rateErrors(base, quote, rate));
    return fxRateRecord(await this.upsertFxRate(this.s.db, base, quote, rate));
  }

  async listFxRates(page: PageRequest): Promise<ListPage<FxRateRecord>> {
    const key: KeyColumn[] = [
      { column: 'base', type: 'text' },
      { column: 'quote', type: 'text' },
    ];
    return mapPage(await listPage<FxRateRow>(this.s.db, { sql: 'SELECT * FROM fx_rates', values: [], key, direction: 'ASC' }, page), fxRateRecord);
  }

  private upsertFxRate(t: Pick<Tx, 'one'>, base: string, quote: string, rate: number): Promise<FxRateRow> {
    return t.one<FxRateRow>(
      `INSERT INTO fx_rates (base, quote, rate, updated_at, source, as_of) VALUES ($1, $2, $3, $4, 'operator', $4)
       ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at, source = 'operator', as_of = EXCLUDED.as_of
       RETURNING *`,
      [base, quote, rate.toFixed(RATE_DECIMALS), this.s.now()],
    );
  }
}
