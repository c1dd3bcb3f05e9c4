// Proves a merchant's or operator's contract test can use a default validator: every response schema of both
// documents compiles under `new Ajv2020()` + ajv-formats (strict mode refuses unknown keywords), and every
// documented response example validates under it.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { specApis } from './helpers/spec';

interface MediaType {
  schema?: object;
  examples?: Record<string, { value?: unknown }>;
}

it.each(['merchant', 'admin'] as const)('compiles every %s response schema and validates its examples with a default Ajv', async (doc) => {
  const api = (await specApis())[doc];
  const problems: string[] = [];
  let checked = 0;
  let examples = 0;
  for (const op of api.getOperations()) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      for (const [mediaType, content] of Object.entries((response as { content?: Record<string, MediaType> }).content ?? {})) {
        const where = `${op.operationId} ${status} ${mediaType}`;
        const ajv = new Ajv2020();
        addFormats(ajv);
        try {
          const validate = ajv.compile(content.schema ?? {});
          for (const [name, example] of Object.entries(content.examples ?? {})) {
            examples += 1;
            if (!validate(example.value)) problems.push(`${where} example ${name}: ${ajv.errorsText(validate.errors)}`);
          }
          checked += 1;
        } catch (e) {
          problems.push(`${where}: ${(e as Error).message}`);
        }
      }
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(doc === 'merchant' ? 50 : 100);
  expect(examples).toBeGreaterThan(doc === 'merchant' ? 20 : 10);
});
