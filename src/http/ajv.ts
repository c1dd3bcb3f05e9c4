// The one Ajv setup of the service and the tests: JSON Schema 2020-12 with formats, OpenAPI's
// discriminator, and the contract's `x-max-decimal-places` keyword. Amounts carry that keyword instead
// of `multipleOf: 0.01`, which standard validators evaluate in floating point and so misfire on valid
// amounts such as 19.99; other validators ignore an `x-` keyword, this service enforces it exactly.
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, SchemaValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { decimalPlaces } from '../domain/money';

export const DECIMALS_KEYWORD = 'x-max-decimal-places';

const maxDecimalPlaces: SchemaValidateFunction = (max: number, data: number) => {
  if (decimalPlaces(data) <= max) return true;
  const error: Partial<ErrorObject> = { keyword: DECIMALS_KEYWORD, message: `must have at most ${max} decimal places`, params: { limit: max } };
  maxDecimalPlaces.errors = [error];
  return false;
};

export function makeAjv(opts: object = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...opts, strict: false, allErrors: true, discriminator: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: DECIMALS_KEYWORD, type: 'number', schemaType: 'number', errors: true, validate: maxDecimalPlaces });
  return ajv;
}

/**
 * Ajv's discriminator refuses `mapping`, which generators need to name each form, so the service's
 * in-memory copy of the document drops it (the tag values are the forms' `const`s either way).
 */
export function dropDiscriminatorMappings(node: unknown, seen = new Set<object>()): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const o = node as Record<string, unknown>;
  const d = o.discriminator as { mapping?: unknown } | undefined;
  if (d && typeof d === 'object' && 'mapping' in d) delete d.mapping;
  for (const v of Object.values(o)) dropDiscriminatorMappings(v, seen);
}
