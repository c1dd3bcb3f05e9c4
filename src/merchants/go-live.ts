// The merchant side of going live: a go-live request the operator sees next to the
// certification, and the business's balances with the dates held amounts are released.
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { AppError } from '../errors';
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';
import type { Base } from '../base';
import { toBalanceRecord } from '../ledger/ledger';
import type { LedgerService } from '../ledger/ledger';

interface GoLiveRow {
  business_id: number;
  business_name: string;
  requested_at: Date;
  requested_by: string;
  note: string | null;
  verified_at: Date | null;
}

const goLiveRecord = (r: GoLiveRow) => ({
  business_id: r.business_id,
  business_name: r.business_name,
  requested_at: apiTime(r.requested_at),
  requested_by: r.requested_by,
  note: r.note,
  verified_at: apiTimeOrNull(r.verified_at),
});

const SELECT_REQUESTS = `SELECT g.business_id, b.name AS business_name, g.requested_at, g.requested_by, g.note, b.verified_at
  FROM go_live_requests g JOIN businesses b ON b.id = g.business_id`;
const REQUEST_ORDER: KeyColumn[] = [
  { column: 'requested_at', type: 'timestamptz' },
  { column: 'business_id', type: 'bigint' },
];
/** releases listed per wallet */
const MAX_RELEASES = 100;

export class GoLiveService {
  constructor(private readonly s: Base & { ledger: LedgerService }) {}

  async request(businessId: number, requestedBy: string, note: string | null) {
    const business = await this.s.db.oneOrNone<{ verified_at: Date | null }>('SELECT verified_at FROM businesses WHERE id = $1', [businessId]);
    if (!business) throw new AppError('NOT_FOUND', 'No business has this id');
    if (business.verified_at) throw new AppError('INVALID_STATE', 'This business is already verified for live payments');
    await this.s.db.none(
      `INSERT INTO go_live_requests (business_id, requested_at, requested_by, note) VALUES ($1, $2, $3, $4)
       ON CONFLICT (business_id) DO UPDATE SET requested_at = EXCLUDED.requested_at, requested_by = EXCLUDED.requested_by, note = EXCLUDED.note`,
      [businessId, this.s.now(), requestedBy, note],
    );
    return goLiveRecord(await this.s.db.one<GoLiveRow>(`${SELECT_REQUESTS} WHERE g.business_id = $1`, [businessId]));
  }

  /**
   * Requests of businesses not verified yet, oldest first. A request made again moves to its new
   * time, so it can show up once more further on: it is a new request.
   */
  async pending(page: PageRequest): Promise<ListPage<ReturnType<typeof goLiveRecord>>> {
    const found = await listPage<GoLiveRow>(this.s.db, { sql: `${SELECT_REQUESTS} WHERE b.verified_at IS NULL`, values: [], key: REQUEST_ORDER, direction: 'ASC' }, page);
    return { ...found, rows: found.rows.map(goLiveRecord) };
  }

  /** Each wallet's balance and its unreleased holds summed per day and bucket, soonest first. */
  async balances(businessId: number) {
    if (!(await this.s.db.oneOrNone('SELECT 1 FROM businesses WHERE id = $1', [businessId]))) throw new AppError('NOT_FOUND', 'No business has this id');
    const balances = await this.s.ledger.walletBalances(businessId);
    const holds = await this.s.db.any<{ currency: string; bucket: 'pending' | 'reserved'; day: Date; amount: bigint }>(
      `SELECT w.currency, h.bucket, date_trunc('day', h.release_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, SUM(h.amount_minor)::bigint AS amount
       FROM ledger_holds h JOIN wallets w ON w.id = h.wallet_id
       WHERE w.business_id = $1 AND h.released_journal_id IS NULL
       GROUP BY w.currency, h.bucket, day ORDER BY day, h.bucket`,
      [businessId],
    );
    return balances.map((b) => ({
      ...toBalanceRecord(b),
      releases: holds
        .filter((h) => h.currency === b.currency)
        .slice(0, MAX_RELEASES)
        .map((h) => ({ bucket: h.bucket, release_at: apiTime(h.day), amount: toApi(h.amount) })),
    }));
  }
}
