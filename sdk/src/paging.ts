// List iteration: every list answers `paging.next_cursor`; sending it back as `cursor` (with the same
// filters) gives the next page, and it is null on the last one. Keyset paging, so an item created
// while iterating is never met twice and none is skipped.

export interface Page<T> {
  data: T[];
  paging: { next_cursor: string | null };
}

/**
 * Every item of a list, page after page. `fetchPage(cursor)` asks for one page (cursor undefined
 * for the first); stop early with `break`. A cursor that comes back twice ends the loop with an
 * error rather than looping for ever.
 */
export async function* iterate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    const next = page.paging.next_cursor;
    if (next === null) return;
    if (seen.has(next)) throw new Error(`the list answered the cursor ${next} twice`);
    seen.add(next);
    cursor = next;
  }
}
