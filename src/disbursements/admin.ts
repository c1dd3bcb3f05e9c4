// Disbursements as the dashboard shows them (docs/contract/disbursements-dashboard.md): every
// business's for operators, a merchant's own for its people (the access layer confines them), each with
// who asked for it and who decided; one with its timeline, read from the audit log (asked for, approved,
// rejected, and by whom) and the changes of state its one move keeps (with, when an API token asked for
// it, the delivery of each change's webhook notification). Reads only: every change of a disbursement
// goes through DisbursementService.
import type { components } from '../../generated/admin-api';
import { sqlFiles } from '../db';
import { listDisbursements } from './filters';
import type { DisbursementFilters } from './filters';
import type { Db } from '../db';
import type { ListPage, PageRequest } from '../db/keyset';
import type { DisbursementStatus } from '../domain/disbursement';
import { apiTime } from '../domain/time';
import { AppError } from '../errors';
import { toDisbursementRecord } from '../api-records/disbursement';
import type { DisbursementRow } from '../api-records/disbursement';

const SQL = sqlFiles(__dirname, ['admin-audit-trail', 'admin-state-changes', 'admin-by-gateway-reference']);

export type AdminDisbursement = components['schemas']['AdminDisbursement'];
export type AdminDisbursementDetail = components['schemas']['AdminDisbursementDetail'];
type TimelineEntry = components['schemas']['DisbursementTimelineEntry'];

/** An operator's filters: every business's, or `business_id`'s. */
export type AdminDisbursementFilters = DisbursementFilters;

interface Parts {
  db: () => Db;
  /** business id -> name (BusinessService.namesOf) */
  namesOf: (ids: number[]) => Promise<Map<number, string>>;
}

const EVENTS: Record<string, TimelineEntry['event']> = {
  createDisbursement: 'requested',
  createAdminDisbursement: 'requested',
  approveDisbursement: 'approved',
  rejectDisbursement: 'rejected',
};

export class AdminDisbursementService {
  constructor(private readonly p: Parts) {}

  private get db(): Db {
    return this.p.db();
  }

  /** Disbursements of every business (or of `business_id`), newest first, filtered. */
  async list(f: AdminDisbursementFilters, page: PageRequest): Promise<ListPage<AdminDisbursement>> {
    const found = await listDisbursements(this.db, f, page);
    return { ...found, rows: await this.recordsOf(found.rows) };
  }

  /** One disbursement of any business with its timeline, oldest event first. */
  async get(gatewayReference: string): Promise<AdminDisbursementDetail> {
    const row = await this.db.oneOrNone<DisbursementRow>(SQL.adminByGatewayReference, { gatewayReference });
    if (!row) throw new AppError('NOT_FOUND', 'No disbursement has this reference');
    return { ...(await this.recordOf(row)), timeline: await this.timelineOf(row) };
  }

  /** One disbursement as the dashboard lists it (the answer to an owner's request). */
  async recordOf(row: DisbursementRow): Promise<AdminDisbursement> {
    const [record] = await this.recordsOf([row]);
    return record;
  }

  private async recordsOf(rows: DisbursementRow[]): Promise<AdminDisbursement[]> {
    const names = await this.p.namesOf(rows.map((r) => r.business_id));
    const ids = [...new Set(rows.flatMap((r) => [r.requested_by_user_id, r.decided_by_user_id]).filter((id): id is number => id !== null))];
    // who asked for and who decided them (dashboard users)
    const asked = ids.length ? await this.db.any<{ id: number; email: string }>('SELECT id, email FROM users WHERE id = ANY($1::int[])', [ids]) : [];
    const people = new Map(asked.map((u) => [u.id, u.email]));
    const person = (id: number | null) => (id === null ? null : { user_id: id, email: people.get(id) ?? null });
    return rows.map((r) => ({
      ...toDisbursementRecord(r),
      business_id: r.business_id,
      business_name: names.get(r.business_id) ?? '',
      requested_by: person(r.requested_by_user_id),
      decided_by: person(r.decided_by_user_id),
      decided_at: r.decided_at ? apiTime(r.decided_at) : null,
      approval_expires_at: r.approval_expires_at ? apiTime(r.approval_expires_at) : null,
    }));
  }

  private async timelineOf(row: DisbursementRow): Promise<TimelineEntry[]> {
    const trail = await this.db.any<{ at: Date; action: string; actor_type: string; actor_email: string | null; transaction_status: string | null }>(SQL.adminAuditTrail, {
      gatewayReference: row.gateway_reference,
      businessId: row.business_id,
    });
    const changes = await this.db.any<{ at: Date; transaction_status: string; sequence: number | null; delivered_at: Date | null; gave_up_at: Date | null }>(SQL.adminStateChanges, {
      disbursementId: row.id,
    });
    // a replay in the dashboard is audited too: the disbursement was asked for once, by the first
    const asked = trail.findIndex((a) => EVENTS[a.action] === 'requested');
    const kept = trail.filter((a, i) => EVENTS[a.action] !== 'requested' || i === asked);
    const entries: { at: Date; order: number; entry: TimelineEntry }[] = [
      ...kept.map((a, i) => {
        // a decision is dated by the move it made (its audit entry is written just after, in the same transaction)
        const at = EVENTS[a.action] !== 'requested' && row.decided_at ? row.decided_at : a.at;
        return {
          at,
          order: i,
          entry: {
            at: apiTime(at),
            event: EVENTS[a.action],
            transaction_status: (a.transaction_status ?? row.status) as DisbursementStatus,
            actor: a.actor_type === 'api_token' ? `API token ${a.actor_email ?? ''}`.trim() : a.actor_email,
            sequence: null,
            delivery: null,
          },
        };
      }),
      ...changes.map((c, i) => ({
        at: c.at,
        order: trail.length + i,
        entry: {
          at: apiTime(c.at),
          event: 'state_changed' as const,
          transaction_status: c.transaction_status as DisbursementStatus,
          actor: null,
          sequence: c.sequence,
          delivery: deliveryOf(c),
        },
      })),
    ];
    // same instant: the owner's decision before the change it made
    return entries.sort((a, b) => a.at.getTime() - b.at.getTime() || a.order - b.order).map((e) => e.entry);
  }
}

/** How a change's webhook notification went; null when no API token asked for the disbursement (no notification). */
function deliveryOf(c: { sequence: number | null; delivered_at: Date | null; gave_up_at: Date | null }): TimelineEntry['delivery'] {
  if (c.sequence === null) return null;
  return c.delivered_at ? 'delivered' : c.gave_up_at ? 'gave_up' : 'retrying';
}
