// Merchants waiting for their go-live review, oldest first; each links to its business page.
import { admin, unwrapPage } from '../../api';
import { Link } from '../../router';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Time } from '../../ui/parts';

export function GoLiveRequests() {
  const { list, pages } = useCursorList(['go-live-requests'], (cursor) => unwrapPage(admin.GET('/v1/admin/go-live-requests', { params: { query: { cursor, per_page: 25 } } })));
  return (
    <>
      <h1>Go-live requests</h1>
      <p>Merchants asking to go live. Open one to review its sandbox test cases, then verify it.</p>
      {list.isPending && <Loading what="go-live requests" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No merchant is waiting.</p>}
      {list.data && list.data.items.length > 0 && (
        <ul className="plain">
          {list.data.items.map((r) => (
            <li key={r.business_id}>
              <Link to={`/businesses/${r.business_id}/go-live`}>{r.business_name}</Link> asked on <Time at={r.requested_at} /> ({r.requested_by}){r.note ? `: “${r.note}”` : ''}
            </li>
          ))}
        </ul>
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}
