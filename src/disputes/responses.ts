// The merchant's answers to a dispute (docs/contract/disputes.md, "The merchant responds"): what both an
// acceptance and a decline with evidence ask first (the dispute is the business's, needs its response and is
// before its deadline), and the evidence's input rules beyond the contract's schema (a real date, the file's
// bytes and their cap).
import type { Db } from '../db';
import type { DisputeEvidence, DisputeFile } from '../domain/dispute';
import { AppError, validationError } from '../errors';
import type { components } from '../../generated/merchant-api';
import type { DisputeRow } from './index';

/** A file sent with evidence is at most this many bytes once decoded: its base64 fits the API's 64 KiB body. */
export const EVIDENCE_FILE_MAX_BYTES = 40 * 1024;

/** A dispute the merchant may answer, with what the processor's call needs. */
export type Answerable = DisputeRow & { service_type: string; credentials_enc: string | null };

/** NOT_FOUND for another business's or no dispute; INVALID_STATE for one that does not need a response, or past its deadline. */
export async function answerable(db: Db, now: Date, businessId: number, gatewayReference: string, answer: string): Promise<Answerable> {
  const d = await db.oneOrNone<Answerable>(
    'SELECT d.*, m.service_type, m.credentials_enc FROM disputes d JOIN mids m ON m.id = d.mid_id WHERE d.gateway_reference = $1 AND d.business_id = $2',
    [gatewayReference, businessId],
  );
  if (!d) throw new AppError('NOT_FOUND', 'No dispute of yours has this gateway_reference');
  if (d.status !== 'needs_response') throw new AppError('INVALID_STATE', `The dispute is ${d.status}: only a dispute that needs your response can be ${answer}`);
  if (d.deadline_at.getTime() <= now.getTime()) throw new AppError('INVALID_STATE', 'The deadline to answer this dispute has passed: the processor accepts it for you');
  return d;
}

type EvidenceBody = components['schemas']['DisputeEvidence'];

/**
 * The evidence, the file and the message of a valid request (VALIDATION_ERROR otherwise): a delivery_date
 * that is a day of the calendar, a file whose content is base64 of at most EVIDENCE_FILE_MAX_BYTES, or the
 * message as a text file when none is given (the processor's decline needs a file).
 */
export function evidenceOf(gatewayReference: string, body: EvidenceBody): { evidence: DisputeEvidence; file: DisputeFile; message: string } {
  const { message, file, ...fields } = body;
  if (fields.delivery_date !== undefined && new Date(`${fields.delivery_date}T00:00:00Z`).toISOString().slice(0, 10) !== fields.delivery_date) {
    throw validationError([{ field: 'delivery_date', message: 'must be a date of the calendar (YYYY-MM-DD)' }]);
  }
  if (!file) return { evidence: fields, message, file: { name: `evidence-${gatewayReference}.txt`, contentType: 'text/plain', bytes: Buffer.from(message, 'utf8') } };
  const bytes = Buffer.from(file.content, 'base64');
  if (bytes.toString('base64') !== file.content) throw validationError([{ field: 'file.content', message: 'must be standard base64 with its padding' }]);
  if (bytes.length > EVIDENCE_FILE_MAX_BYTES) throw validationError([{ field: 'file.content', message: `must be at most ${EVIDENCE_FILE_MAX_BYTES} bytes once decoded` }]);
  return { evidence: fields, message, file: { name: file.name, contentType: file.content_type, bytes } };
}
