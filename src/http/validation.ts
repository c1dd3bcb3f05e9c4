// Turns Ajv errors from openapi-backend into the contract's field list: the request's own field
// names ("amount", not "/requestBody/amount"), every broken rule listed once.
import type { ErrorObject } from 'ajv';
import { PAYMENT_METHODS } from '../domain/collection';
import type { FieldError } from '../errors';

const LOCATIONS = new Set(['requestBody', 'query', 'path', 'headers', 'header']);

function fieldOf(err: ErrorObject): string {
  const parts = err.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length > 0 && LOCATIONS.has(parts[0])) parts.shift();
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required' && typeof params.missingProperty === 'string') parts.push(params.missingProperty);
  if (err.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty as string);
  }
  if (err.keyword === 'discriminator' && typeof params.tag === 'string') parts.push(params.tag);
  return parts.join('.') || 'body';
}

function messageOf(err: ErrorObject): string {
  const params = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `must match ${String(params.pattern)}`;
    case 'discriminator':
      return discriminatorMessage(params);
    default:
      return err.message ?? 'is invalid';
  }
}

/** The values a discriminator takes, for the message when the request's value is missing or unknown. */
const TAG_VALUES: Record<string, readonly string[]> = { payment_method: PAYMENT_METHODS };

function discriminatorMessage(params: Record<string, unknown>): string {
  if (params.tagValue === undefined) return 'is required';
  const values = TAG_VALUES[String(params.tag)];
  return values ? `must be one of ${values.join(', ')}` : 'is not one of the documented values';
}

/** Keyword errors that only repeat what another error already says. */
const NOISE = new Set(['if', 'anyOf', 'oneOf', 'allOf', 'not', 'then', 'else']);

export function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const list = errors ?? [];
  const meaningful = list.filter((e) => !NOISE.has(e.keyword));
  // An anyOf with no meaningful branch error (e.g. "ALL" or a list) is reported as itself.
  const source = meaningful.length > 0 ? meaningful : list;
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const err of source) {
    const field = fieldOf(err);
    const message = messageOf(err);
    const key = field + '\u0000' + message;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}
