// List conventions of the specification: per_page (default 10, at most 100), page (1-based), offset
// (wins over page); X-PH-Total, X-PH-TotalPages and an RFC 8288 Link header that keeps the filters.
import LinkHeader from 'http-link-header';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;

export interface Page {
  perPage: number;
  page: number;
  offset: number;
}

type Query = Record<string, unknown>;

export function pageOf(query: Query): Page {
  const perPage = Math.min(Number(query.per_page ?? DEFAULT_PER_PAGE), MAX_PER_PAGE);
  if (query.offset !== undefined) {
    const offset = Number(query.offset);
    return { perPage, offset, page: Math.floor(offset / perPage) + 1 };
  }
  const page = Number(query.page ?? 1);
  return { perPage, page, offset: (page - 1) * perPage };
}

/** The headers of a paged response; links are built on PUBLIC_BASE_URL and keep every filter given. */
export function pageHeaders(baseUrl: string, path: string, query: Query, p: Page, total: number): Record<string, string> {
  const totalPages = Math.max(1, Math.ceil(total / p.perPage));
  const link = new LinkHeader();
  const url = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (k === 'page' || k === 'offset' || k === 'per_page' || v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
    }
    params.set('per_page', String(p.perPage));
    params.set('page', String(page));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  link.set({ uri: url(1), rel: 'first' });
  if (p.page > 1) link.set({ uri: url(Math.min(p.page - 1, totalPages)), rel: 'prev' });
  if (p.page < totalPages) link.set({ uri: url(p.page + 1), rel: 'next' });
  link.set({ uri: url(totalPages), rel: 'last' });
  return { 'X-PH-Total': String(total), 'X-PH-TotalPages': String(totalPages), Link: link.toString() };
}
