// MIDs (docs/contract/operator.md, docs/contract/processors.md): a business's accounts at processors,
// created, listed and changed; what a processor cannot take (its methods, currencies, credentials) and what
// a MID is for (collects, disburses) are refused field by field; credentials are sealed, never returned.
import type { Base } from '../base';
import type { Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, ListQuery, PageRequest } from '../db/keyset';
import { masterKeys, seal } from '../crypto/secretbox';
import { isDisbursementMethod } from '../domain/disbursement';
import type { FieldError } from '../errors';
import type { Processors } from '../processors';
import { credentialErrors, openCredentials, sealCredentials } from '../processors/credentials';
import { midRecord } from '../api-records/merchant';
import type { MidRecord, MidRow, PaymentMethod } from '../api-records/merchant';
import { checkId, defined, lockBusiness, mapPage, notFound, serviceTypeErrors, throwIfAny, updateSql } from './inputs';
import type { MidInput, MidPatch } from './inputs';

export class MidService {
  /** `paysOut`: whether a service type's processor pays out (the simulator's payouts included), for MIDs that disburse */
  constructor(readonly s: Base & { processors: Processors; paysOut: (serviceType: string) => boolean }) {}

  async createMid(businessId: number, input: MidInput): Promise<MidRecord> {
    checkId(businessId, 'business');
    throwIfAny(serviceTypeErrors(input.service_type, this.s.processors.serviceTypes()));
    throwIfAny([
      ...this.processorErrors(input.service_type, input.payment_method, input.currency, input.credentials ?? {}),
      ...this.roleErrors(input.service_type, input.payment_method, input.collects ?? true, input.disburses ?? false),
    ]);
    return this.s.db.tx(async (t) => {
      await lockBusiness(t, businessId);
      return midRecord(await this.insertMid(t, businessId, input));
    });
  }

  async listMids(businessId: number, page: PageRequest): Promise<ListPage<MidRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      if (!(await t.oneOrNone('SELECT 1 FROM businesses WHERE id = $1', [businessId]))) throw notFound('business');
      const q: ListQuery = { sql: 'SELECT * FROM mids WHERE business_id = $1', values: [businessId], key: BY_ID, direction: 'ASC' };
      return mapPage(await listPage<MidRow>(t, q, page), midRecord);
    });
  }

  async updateMid(id: number, patch: MidPatch): Promise<MidRecord> {
    checkId(id, 'MID');
    throwIfAny(serviceTypeErrors(patch.service_type, this.s.processors.serviceTypes()));
    const { merchant_password, credentials, ...columns } = patch;
    const values: Record<string, unknown> = { ...defined(columns), updated_at: this.s.now() };
    if (merchant_password !== undefined) values.merchant_password_enc = seal(this.s.config.masterKey, merchant_password);
    const processorChanges = credentials !== undefined || patch.service_type !== undefined || patch.currency !== undefined || patch.payment_method !== undefined;
    const roleChanges = patch.collects !== undefined || patch.disburses !== undefined || patch.service_type !== undefined || patch.payment_method !== undefined;
    if (processorChanges || roleChanges) {
      // the MID as it is, read once for both checks
      const mid = await this.s.db.oneOrNone<MidRow>('SELECT * FROM mids WHERE id = $1', [id]);
      if (!mid) throw notFound('MID');
      if (processorChanges) Object.assign(values, this.checkedCredentials(mid, patch));
      if (roleChanges) {
        throwIfAny(this.roleErrors(patch.service_type ?? mid.service_type, patch.payment_method ?? mid.payment_method, patch.collects ?? mid.collects, patch.disburses ?? mid.disburses));
      }
    }
    const row = await this.s.db.oneOrNone<MidRow>(updateSql('mids', values, ['allowed_traffic']) + ' WHERE id = $1 RETURNING *', [id]);
    if (!row) throw notFound('MID');
    return midRecord(row);
  }

  /** What a processor cannot take: its methods, currencies and credentials (docs/contract/processors.md). */
  private processorErrors(serviceType: string, method: PaymentMethod, currency: string, credentials: Record<string, string>): FieldError[] {
    const processor = this.s.processors.get(serviceType);
    const errors: FieldError[] = [];
    if (!processor.paymentMethods.includes(method)) {
      errors.push({ field: 'payment_method', message: `${serviceType} takes ${processor.paymentMethods.join(', ')}` });
    }
    if (processor.amountDecimals(currency) === null) errors.push({ field: 'currency', message: `${serviceType} does not take ${currency}` });
    return [...errors, ...credentialErrors(processor, credentials)];
  }

  /**
   * What a MID is for (docs/contract/processors.md): it collects, disburses or both; it disburses only
   * through a processor that pays out, to a phone or a bank account.
   */
  private roleErrors(serviceType: string, method: PaymentMethod, collects: boolean, disburses: boolean): FieldError[] {
    if (!collects && !disburses) return [{ field: 'disburses', message: 'A MID collects, disburses or both: set collects or disburses to true' }];
    if (!disburses) return [];
    if (!isDisbursementMethod(method)) return [{ field: 'disburses', message: `Disbursements go to a phone or a bank account: a ${method} MID cannot disburse` }];
    if (!this.s.paysOut(serviceType)) return [{ field: 'disburses', message: `${serviceType} pays nothing out: its MIDs cannot disburse` }];
    return [];
  }

  /**
   * A MID update touching its processor: the credentials after the update (`mid`'s stored ones with the
   * new values over them; replaced outright when the service type changes) checked against the
   * processor it will have, then sealed.
   */
  private checkedCredentials(mid: MidRow, patch: MidPatch): { credentials_enc: string | null; credential_names: string[] } {
    const serviceType = patch.service_type ?? mid.service_type;
    const kept = serviceType === mid.service_type ? openCredentials(masterKeys(this.s.config), mid.credentials_enc) : {};
    const merged = { ...kept, ...patch.credentials };
    throwIfAny(this.processorErrors(serviceType, patch.payment_method ?? mid.payment_method, patch.currency ?? mid.currency, merged));
    return sealCredentials(this.s.config.masterKey, merged);
  }

  async insertMid(t: Tx, businessId: number, m: MidInput): Promise<MidRow> {
    const now = this.s.now();
    const sealed = sealCredentials(this.s.config.masterKey, m.credentials ?? {});
    return t.one<MidRow>(
      `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency, allowed_traffic,
         merchant_operator, merchant_username, merchant_password_enc, processing_rank,
         reject_first_time_depositors, active, created_at, updated_at, credentials_enc, credential_names, collects, disburses)
       VALUES ($1, $2, $3, $4, $5, $6:json::jsonb, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16, $17) RETURNING *`,
      [
        businessId,
        m.business_name,
        m.service_type,
        m.payment_method,
        m.currency,
        m.allowed_traffic ?? 'ALL',
        m.merchant_operator ?? null,
        m.merchant_username ?? null,
        m.merchant_password === undefined ? null : seal(this.s.config.masterKey, m.merchant_password),
        m.processing_rank ?? 1,
        m.reject_first_time_depositors ?? false,
        m.active ?? true,
        now,
        sealed.credentials_enc,
        sealed.credential_names,
        m.collects ?? true,
        m.disburses ?? false,
      ],
    );
  }
}
