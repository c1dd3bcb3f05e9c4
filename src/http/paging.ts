// List conventions: per_page (default 10, at most 100) and cursor (keyset paging), or for
// compatibility page (1-based) or offset (wins over page). The answer carries `paging` in the body
// ({ per_page, next_cursor, total }) and X-PH-Total, X-PH-TotalPages and an RFC 8288 Link header
// that keeps the filters.
import type { ListPage, PageRequest } from '../db/keyset';
import { validationError } from '../errors';
import type { RequestContext } from './context';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;

export interface Page extends PageRequest {
  perPage: number;
  /** 1-based page number (page/offset paging); null with a cursor */
  page: number | null;
}

type Query = Record<string, unknown>;

export function pageOf(query: Query): Page {
  const perPage = Math.min(Number(query.per_page ?? DEFAULT_PER_PAGE), MAX_PER_PAGE);
  if (query.cursor !== undefined) {
    if (query.page !== undefined || query.offset !== undefined) {
      throw validationError([{ field: 'cursor', message: 'cannot be combined with page or offset' }]);
    }
    return { perPage, limit: perPage, page: null, offset: 0, cursor: String(query.cursor) };
  }
  if (query.offset !== undefined) {
    const offset = Number(query.offset);
    return { perPage, limit: perPage, offset, page: Math.floor(offset / perPage) + 1, cursor: null };
  }
  const page = Number(query.page ?? 1);
  return { perPage, limit: perPage, page, offset: (page - 1) * perPage, cursor: null };
}

const PAGING_PARAMS = new Set(['page', 'offset', 'per_page', 'cursor']);

/** The headers of a paged response; links are built on PUBLIC_BASE_URL and keep every filter given. */
export function pageHeaders(baseUrl: string, path: string, query: Query, p: Page, total: number, nextCursor: string | null = null): Record<string, string> {
  const totalPages = Math.max(1, Math.ceil(total / p.perPage));
  const url = (paging: Record<string, string>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (PAGING_PARAMS.has(k) || v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
    }
    params.set('per_page', String(p.perPage));
    for (const [k, v] of Object.entries(paging)) params.set(k, v);
    return `${baseUrl}${path}?${params.toString()}`;
  };
  const links: [string, string][] = [['first', url({ page: '1' })]];
  if (p.page === null) {
    if (nextCursor) links.push(['next', url({ cursor: nextCursor })]);
  } else {
    if (p.page > 1) links.push(['prev', url({ page: String(Math.min(p.page - 1, totalPages)) })]);
    if (p.page < totalPages) links.push(['next', url({ page: String(p.page + 1) })]);
    links.push(['last', url({ page: String(totalPages) })]);
  }
  return {
    'X-PH-Total': String(total),
    'X-PH-TotalPages': String(totalPages),
    Link: links.map(([rel, uri]) => `<${uri}>; rel="${rel}"`).join(', '),
  };
}

export interface Paging {
  per_page: number;
  next_cursor: string | null;
  total: number;
}

/** The success envelope of a page: the items in `data`, the way on in `paging`, and the headers. */
export function pageReply<T>(ctx: RequestContext, query: Query, p: Page, result: ListPage<T>, message: string) {
  const paging: Paging = { per_page: p.perPage, next_cursor: result.nextCursor, total: result.total };
  return {
    body: { code: 200 as const, status: 'success' as const, message, data: result.rows, paging },
    headers: pageHeaders(ctx.services.config.publicBaseUrl, ctx.req.path, query, p, result.total, result.nextCursor),
  };
}

/** A paged list: the service gets the page asked for, the answer gets `paging`, X-PH-* and Link. */
export async function pagedReply<T>(ctx: RequestContext, query: Query, message: string, load: (page: PageRequest) => Promise<ListPage<T>>) {
  const page = pageOf(query);
  return pageReply(ctx, query, page, await load(page), message);
}
