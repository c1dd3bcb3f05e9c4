// Proves the error catalog in code and the spec's ErrorCode enum list the same codes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ERROR_CATALOG } from '../src/errors';

it('matches the ErrorCode enum of the spec', () => {
  const file = path.resolve(__dirname, '..', 'openapi', 'components', 'schemas', 'ErrorCode.yaml');
  const schema = parse(readFileSync(file, 'utf8')) as { enum: string[] };
  expect([...schema.enum].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
});
