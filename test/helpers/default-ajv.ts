// Checks answers as a merchant's own contract test would: a default Ajv (`new Ajv2020()` with
// ajv-formats, no options) on each response's schema, taken from the merchant document with every
// $ref resolved (openapi-backend's dereferenced copy).
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { specApis } from './spec';

export interface Answer {
  method: string;
  url: string;
  status: number;
  contentType: string;
  text: string;
}

const ajv = new Ajv2020();
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

/** What is wrong with each answer (an empty list when every one validates). */
export async function defaultAjvProblems(answers: Answer[]): Promise<string[]> {
  const { merchant } = await specApis();
  const problems: string[] = [];
  for (const a of answers) {
    const where = `${a.method} ${new URL(a.url).pathname} -> ${a.status}`;
    const operation = merchant.matchOperation({ method: a.method, path: new URL(a.url).pathname, headers: {} });
    const mediaType = a.contentType.split(';')[0].trim();
    const response = operation?.responses?.[String(a.status)] as { content?: Record<string, { schema?: object }> } | undefined;
    const schema = response?.content?.[mediaType]?.schema;
    if (!schema) {
      problems.push(`${where}: no ${mediaType} schema documented`);
      continue;
    }
    if (!compiled.has(schema)) compiled.set(schema, ajv.compile(schema));
    const validate = compiled.get(schema)!;
    if (!validate(mediaType.endsWith('json') ? JSON.parse(a.text) : a.text)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  return problems;
}
