// The text of a statement as pg-promise's events hand it over: a string, or a query object with `text`
// (a prepared statement or a QueryFile); '' when neither.
export function statementText(query: unknown): string {
  if (typeof query === 'string') return query;
  const text = (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}
