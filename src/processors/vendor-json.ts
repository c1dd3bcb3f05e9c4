// Reading a vendor's JSON without trusting its shape: a field is used only when it has the type expected.
// Pure.

/** A JSON object, or null for anything else (arrays included). */
export function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A non-empty string, or null. */
export function text(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** A body's bytes as a JSON object, or null when they are not one. */
export function jsonObject(raw: Buffer): Record<string, unknown> | null {
  try {
    return record(JSON.parse(raw.toString('utf8')));
  } catch {
    return null;
  }
}
