// What every request reads and rarely changes, kept in this process's memory: API token state (with the
// recipients of its notices), each business's MIDs, and the pricing inputs per business, method and
// currency. Exact across processes (migration 0070): every change to those tables bumps config_version
// and sends a NOTIFY on CONFIG_CHANNEL in the same transaction. A process drops everything on the notice;
// a version poll catches a notice lost with its listening session; and a request-to-pay's write is
// guarded by the version its inputs were read at (config_current in collections/sql/create.sql), so even a missed notice cannot write
// with stale tokens, routing or prices; the operator API drops this process's copy itself before it
// answers a change (http/access.ts). Until live() runs (services built without a running service),
// nothing is kept and every lookup reads the database.
import { bound, hotSqlFile, statement } from '../db';
import type { Db } from '../db';
import { listenOn } from '../db/listen';
import type { PaymentMethod } from '../domain/collection';
import { PIVOT } from '../domain/fx';
import type { MidInfo } from '../domain/routing';
import type { Logger } from '../log';
import type { Recipients } from '../notifications/notifications';
import type { PricingInputs } from './pricing';

export const CONFIG_CHANNEL = 'paycollect_config';
/** How often a live cache compares its version with the database's (the safety net for a lost notice). */
const VERSION_POLL_MS = 1000;

export type RouteMid = MidInfo & { service_type: string };

export interface TokenState {
  id: number;
  business_id: number;
  generation: number;
  business_verified: boolean;
  recipients: Recipients;
}

/** What a request-to-pay reads, all at one configuration version. */
export interface RequestConfig {
  version: bigint;
  token: TokenState | null;
  mids: RouteMid[];
  pricing: PricingInputs | null;
}

interface Want {
  token?: number;
  mids?: number;
  pricing?: { businessId: number; paymentMethod: PaymentMethod; requestCurrency: string };
}

interface Loaded {
  version: bigint;
  token: TokenState | null;
  mids: RouteMid[] | null;
  pricing: PricingInputs | null;
}

/** The configuration read of a request-to-pay (sql/request-config.sql): a constant text, prepared on a real server. */
const REQUEST_CONFIG_SQL = hotSqlFile(__dirname, 'request-config.sql');

/** Thrown by a write whose guard found the configuration changed since its inputs were read. */
export class ConfigChanged extends Error {}

export class ConfigCache {
  /** the version every kept entry was read at; null when nothing is kept */
  private version: bigint | null = null;
  /** bumped by every invalidation: a load that started before one does not keep what it read */
  private epoch = 0;
  private tokens = new Map<number, TokenState | null>();
  private mids = new Map<number, RouteMid[]>();
  private pricing = new Map<string, PricingInputs | null>();
  /** true while a listening session is up: only then is anything kept */
  private keeping = false;
  private listener: { stop(): Promise<void> } | null = null;
  private poll: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /**
   * Keep entries from now on, dropping them on every NOTIFY and whenever the version moved. `listen`
   * false (the embedded database: its socket delivers no notices, and no other process shares it): kept
   * with the version poll and the write guard alone, and dropped by this process's own changes (invalidate()).
   * `pollMs`: how often the version is compared (tests that count statements pass one longer than the test).
   */
  live(listen: boolean, pollMs = VERSION_POLL_MS): void {
    if (this.poll) return;
    this.poll = setInterval(() => void this.checkVersion(), pollMs);
    this.poll.unref();
    if (!listen) {
      this.keeping = true;
      return;
    }
    this.listener = listenOn(
      this.db,
      CONFIG_CHANNEL,
      {
        notice: () => this.invalidate(),
        listening: () => {
          this.invalidate();
          this.keeping = true;
        },
        lost: () => {
          this.keeping = false;
          this.invalidate();
        },
      },
      this.log,
    );
  }

  async stop(): Promise<void> {
    this.keeping = false;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    await this.listener?.stop();
    this.listener = null;
    this.invalidate();
  }

  invalidate(): void {
    this.epoch += 1;
    this.version = null;
    this.tokens.clear();
    this.mids.clear();
    this.pricing.clear();
  }

  private async checkVersion(): Promise<void> {
    if (this.version === null) return;
    const seen = this.version;
    try {
      const { version } = await this.db.one<{ version: bigint }>(statement(this.db, 'config-version', 'SELECT version FROM config_version', []));
      if (version !== seen && this.version === seen) this.invalidate();
    } catch (err) {
      this.log.warn('configuration version check failed', { err });
      this.invalidate();
    }
  }

  /** The API token's state (null: no such token) and the version it was read at. */
  async token(id: number): Promise<{ version: bigint; token: TokenState | null }> {
    if (this.version !== null && this.tokens.has(id)) return { version: this.version, token: this.tokens.get(id)! };
    const loaded = await this.load({ token: id });
    return { version: loaded.version, token: loaded.token };
  }

  /** Everything a request-to-pay reads, at one version: from memory when kept, else in one statement. */
  async forRequest(tokenId: number, businessId: number, paymentMethod: PaymentMethod, requestCurrency: string): Promise<RequestConfig> {
    const key = `${businessId}:${paymentMethod}:${requestCurrency}`;
    const at = this.version;
    const kept: Partial<Omit<RequestConfig, 'version'>> = {};
    if (at !== null) {
      if (this.tokens.has(tokenId)) kept.token = this.tokens.get(tokenId);
      if (this.mids.has(businessId)) kept.mids = this.mids.get(businessId);
      if (this.pricing.has(key)) kept.pricing = this.pricing.get(key);
    }
    const want: Want = {};
    if (kept.token === undefined) want.token = tokenId;
    if (kept.mids === undefined) want.mids = businessId;
    if (kept.pricing === undefined) want.pricing = { businessId, paymentMethod, requestCurrency };
    if (Object.keys(want).length === 0) return { version: at!, token: kept.token!, mids: kept.mids!, pricing: kept.pricing! };
    const loaded = await this.load(want);
    // what was kept belongs to another version: read everything at one
    if (Object.keys(want).length < 3 && loaded.version !== at) return this.forRequestAt(tokenId, businessId, paymentMethod, requestCurrency);
    return {
      version: loaded.version,
      token: want.token !== undefined ? loaded.token : kept.token!,
      mids: want.mids !== undefined ? (loaded.mids ?? []) : kept.mids!,
      pricing: want.pricing ? loaded.pricing : kept.pricing!,
    };
  }

  /** forRequest reading every part in one statement, whatever is kept. */
  private async forRequestAt(tokenId: number, businessId: number, paymentMethod: PaymentMethod, requestCurrency: string): Promise<RequestConfig> {
    const loaded = await this.load({ token: tokenId, mids: businessId, pricing: { businessId, paymentMethod, requestCurrency } });
    return { version: loaded.version, token: loaded.token, mids: loaded.mids ?? [], pricing: loaded.pricing };
  }

  /** One statement reading the version and the wanted parts; kept when live and still current. */
  private async load(want: Want): Promise<Loaded> {
    const epoch = this.epoch;
    const loaded = await this.db.one<Loaded>(
      bound(this.db, REQUEST_CONFIG_SQL, {
        token_id: want.token ?? null,
        mids_business_id: want.mids ?? null,
        pricing_business_id: want.pricing?.businessId ?? null,
        payment_method: want.pricing?.paymentMethod ?? null,
        request_currency: want.pricing?.requestCurrency ?? null,
        pivot: PIVOT,
      }),
    );
    if (!this.keeping || epoch !== this.epoch) return loaded;
    if (this.version !== null && this.version !== loaded.version) {
      if (loaded.version < this.version) return loaded;
      this.invalidate();
    }
    this.version = loaded.version;
    if (want.token !== undefined) this.tokens.set(want.token, loaded.token);
    if (want.mids !== undefined) this.mids.set(want.mids, loaded.mids ?? []);
    if (want.pricing) {
      const p = want.pricing;
      this.pricing.set(`${p.businessId}:${p.paymentMethod}:${p.requestCurrency}`, loaded.pricing);
    }
    return loaded;
  }
}
