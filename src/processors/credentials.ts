// MID credentials for real processors: each service type declares the fields it needs; they are
// checked on MID creation and update, sealed together with MASTER_KEY, never returned or logged. Only
// their names are kept in clear (credential_names) so the operator can see which are set.
import { openWithAny, seal } from '../crypto/secretbox';
import type { FieldError } from '../errors';
import type { Credentials, Processor } from './types';

const MAX_VALUE_LENGTH = 1024;

/** What is wrong with the credentials a MID of this processor would have (the merged set). */
export function credentialErrors(processor: Processor, credentials: Record<string, string>): FieldError[] {
  const errors: FieldError[] = [];
  const known = new Set(processor.credentials.map((f) => f.name));
  for (const name of Object.keys(credentials).sort()) {
    if (!known.has(name)) {
      const expected = known.size ? `expected: ${[...known].join(', ')}` : `service type ${processor.serviceType} takes no credentials`;
      errors.push({ field: `credentials.${name}`, message: `is not a credential of ${processor.serviceType} (${expected})` });
    }
  }
  for (const f of processor.credentials) {
    const value = credentials[f.name];
    if (value === undefined) {
      if (!f.optional) errors.push({ field: `credentials.${f.name}`, message: `is required for ${processor.serviceType}: ${f.description}` });
      continue;
    }
    const problem = value.length > MAX_VALUE_LENGTH ? `must be at most ${MAX_VALUE_LENGTH} characters` : f.check(value);
    if (problem) errors.push({ field: `credentials.${f.name}`, message: problem });
  }
  return errors;
}

export function sealCredentials(masterKey: Buffer, credentials: Record<string, string>): { credentials_enc: string | null; credential_names: string[] } {
  const names = Object.keys(credentials).sort();
  if (names.length === 0) return { credentials_enc: null, credential_names: [] };
  return { credentials_enc: seal(masterKey, JSON.stringify(credentials)), credential_names: names };
}

/** `keys`: MASTER_KEY, then MASTER_KEY_PREVIOUS (masterKeys(config)), so credentials open during a rotation. */
export function openCredentials(keys: Buffer[], sealed: string | null): Credentials {
  return sealed ? (JSON.parse(openWithAny(keys, sealed).plaintext) as Record<string, string>) : {};
}
