// Keyset paging for every list: the API hands out the cursor of the next page only, so the pages
// already seen are kept as a stack of cursors here; Previous pops it, Next pushes. A change of the
// list's filters (its query key) starts again from the first page, as a cursor is only good with
// the filters it came with.
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Page } from '../api';

export interface Pages {
  /** 1-based, for reading only: the API knows no page numbers */
  number: number;
  previous?: () => void;
  next?: () => void;
}

export function useCursorList<T>(key: readonly unknown[], load: (cursor: string | undefined) => Promise<Page<T>>) {
  const keyText = JSON.stringify(key);
  const [paged, setPaged] = useState<{ key: string; cursors: string[] }>({ key: keyText, cursors: [] });
  const cursors = paged.key === keyText ? paged.cursors : [];
  const cursor = cursors[cursors.length - 1];
  const list = useQuery({ queryKey: [...key, { cursor }], queryFn: () => load(cursor), placeholderData: keepPreviousData });
  const nextCursor = list.isPlaceholderData ? null : list.data?.nextCursor;
  const pages: Pages = {
    number: cursors.length + 1,
    previous: cursors.length > 0 ? () => setPaged({ key: keyText, cursors: cursors.slice(0, -1) }) : undefined,
    next: nextCursor ? () => setPaged({ key: keyText, cursors: [...cursors, nextCursor] }) : undefined,
  };
  return { list, pages };
}

export function Pager({ pages, total }: { pages: Pages; total?: number }) {
  if (!pages.previous && !pages.next) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={!pages.previous} onClick={pages.previous}>
        Previous
      </button>
      <span aria-live="polite">
        Page {pages.number}
        {total !== undefined && ` · ${total} in all`}
      </span>
      <button type="button" disabled={!pages.next} onClick={pages.next}>
        Next
      </button>
    </nav>
  );
}
