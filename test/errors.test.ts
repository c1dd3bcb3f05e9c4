// Proves the error catalog in code and the spec's error codes (VALIDATION_ERROR's own form plus the PlainErrorCode enum) list the same codes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ERROR_CATALOG } from '../src/errors';

const SCHEMAS = path.resolve(__dirname, '..', 'openapi', 'components', 'schemas');
const schema = (name: string) => parse(readFileSync(path.join(SCHEMAS, name), 'utf8'));

it('matches the codes of the spec', () => {
  const plain = schema('PlainErrorCode.yaml') as { enum: string[] };
  const validation = schema('ValidationError.yaml') as { properties: { code: { const: string } } };
  const codes = [validation.properties.code.const, ...plain.enum];
  expect([...codes].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
});
