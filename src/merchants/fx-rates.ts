// Market rates (docs/contract/money.md): one per pair, listed by pair; set here by the operator (source
// 'operator', as_of the time set), or by a daily feed (src/rates/), which never replaces the operator's.
import type { Base } from '../base';
import { setOperatorRate } from '../rates/writes';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { fxRateRecord } from '../api-records/merchant';
import type { FxRateRecord, FxRateRow } from '../api-records/merchant';
import { mapPage, RATE_DECIMALS, rateErrors, throwIfAny } from './inputs';

export class FxRateService {
  constructor(readonly s: Base) {}

  async setFxRate(base: string, quote: string, rate: number): Promise<FxRateRecord> {
    throwIfAny(rateErrors(base, quote, rate));
    return fxRateRecord(await setOperatorRate(this.s.db, base, quote, rate.toFixed(RATE_DECIMALS), this.s.now()));
  }

  async listFxRates(page: PageRequest): Promise<ListPage<FxRateRecord>> {
    const key: KeyColumn[] = [
      { column: 'base', type: 'text' },
      { column: 'quote', type: 'text' },
    ];
    return mapPage(await listPage<FxRateRow>(this.s.db, { sql: 'SELECT * FROM fx_rates', values: [], key, direction: 'ASC' }, page), fxRateRecord);
  }
}
