// Every business account, newest first, and the form that creates one.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import { Link, navigate } from '../../router';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { useCan } from '../../session';
import { BusinessForm } from './BusinessForm';
import type { Terms } from './BusinessForm';

export function Businesses() {
  const { list, pages } = useCursorList(['businesses'], (cursor) => unwrapPage(admin.GET('/v1/admin/businesses', { params: { query: { cursor, per_page: 20 } } })));
  const mayCreate = useCan('operate');
  return (
    <>
      <div className="page-head">
        <h1>Businesses</h1>
        {mayCreate && (
          <Link to="/businesses/new" className="button">
            New business
          </Link>
        )}
      </div>
      {list.isPending && <Loading what="businesses" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No business yet. Create the first one with “New business”.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          rows={list.data.items}
          rowKey={(b) => b.id}
          columns={[
            {
              head: 'Business',
              cell: (b) => (
                <>
                  <Link to={`/businesses/${b.id}`}>{b.name}</Link> <span className="muted">#{b.id}</span>
                </>
              ),
            },
            { head: 'Currency', cell: (b) => b.wallets.join(', ') },
            { head: 'Fee paid by', cell: (b) => b.fee_bearer },
            { head: 'Go-live', cell: (b) => (b.verified ? 'verified' : 'not verified') },
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

export function NewBusiness() {
  const queries = useQueryClient();
  const create = useMutation({
    mutationFn: (terms: Terms) => unwrap(admin.POST('/v1/admin/businesses', { body: terms })),
    onSuccess: async (body) => {
      await queries.invalidateQueries({ queryKey: ['businesses'] });
      navigate(`/businesses/${body.data.id}`);
    },
  });
  return (
    <>
      <h1>New business</h1>
      <p>Its default wallet is created with it. Add MIDs and an API token on its page next.</p>
      <BusinessForm submitLabel="Create business" pending={create.isPending} error={create.error} onSubmit={(t) => create.mutate(t)} />
    </>
  );
}
