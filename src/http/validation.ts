// Turns Ajv errors from openapi-backend into the contract's field list: the request's own field
// names ("amount", not "/requestBody/amount"), every broken rule listed once.
import type { ErrorObject } from 'ajv';
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
    case 'multipleOf':
      return params.multipleOf === 0.01 ? 'must have at most 2 decimal places' : `must be a multiple of ${String(params.multipleOf)}`;
    default:
      return err.message ?? 'is invalid';
  }
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
