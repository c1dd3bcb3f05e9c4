// Turns Ajv errors from openapi-backend into the contract's field list: the request's own field
// names ("amount", not "/requestBody/amount"), every broken rule listed once, at most
// MAX_FIELD_ERRORS of them (a body of 4,000 unknown keys must not earn a 200 KB answer).
import type { ErrorObject } from 'ajv';
import { PAYMENT_METHODS } from '../domain/collection';
import type { FieldError } from '../errors';

/** The most field errors one VALIDATION_ERROR lists (docs/contract/errors.md). */
export const MAX_FIELD_ERRORS = 20;

/** Patterns of the spec whose regular expression would tell a reader less than a sentence. */
const PATTERN_MESSAGES: Record<string, string> = {
  // components/schemas/Text.yaml
  '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$': 'must not contain U+0000 or an unpaired surrogate',
  // components/parameters/ReconciliationDay.yaml: format date takes year 0000, which PostgreSQL has not
  '^(?!0000-)': 'must be a day of years 0001 to 9999',
};
const TIMESTAMP_MESSAGE = 'must be a real date and time in UTC, YYYY-MM-DDTHH:MM:SSZ';

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
      return patternMessage(String(params.pattern));
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

function patternMessage(pattern: string): string {
  // components/schemas/Timestamp.yaml: a calendar written as a regular expression
  if (pattern.startsWith('^(?!0000)')) return TIMESTAMP_MESSAGE;
  return PATTERN_MESSAGES[pattern] ?? `must match ${pattern}`;
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
    if (out.length === MAX_FIELD_ERRORS) break;
  }
  return out;
}
