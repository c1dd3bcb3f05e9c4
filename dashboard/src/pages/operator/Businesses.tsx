// Every business account, newest first, and the form that creates one.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import { Link, navigate } from '../../router';
import { LoadError, Loading, Pager } from '../../ui/parts';
import { useCan } from '../../session';
import { BusinessForm } from './BusinessForm';
import type { Terms } from './BusinessForm';

export function Businesses() {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['businesses', page],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/businesses', { params: { query: { page, per_page: 20 } } })),
  });
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
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Business</th>
                <th scope="col">Currency</th>
                <th scope="col">Fee paid by</th>
                <th scope="col">Go-live</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((b) => (
                <tr key={b.id}>
                  <td>
                    <Link to={`/businesses/${b.id}`}>{b.name}</Link> <span className="muted">#{b.id}</span>
                  </td>
                  <td>{b.wallets.join(', ')}</td>
                  <td>{b.fee_bearer}</td>
                  <td>{b.verified ? 'verified' : 'not verified'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={page} pages={list.data.pages} onPage={setPage} />}
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
