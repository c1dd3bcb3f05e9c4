// Collections: the search (an operator's over every business, a merchant's over its own), and one
// collection with its delivery log; operators also see its routing decision and ledger postings.
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link, useLocation } from '../../router';
import { CollectionSummary, CollectionTable, queryOf, SearchForm, searchOf, WindowLine } from '../../ui/collections';
import { LoadError, Loading, Money, Section, Time } from '../../ui/parts';
import { Deliveries } from './Deliveries';

/** `businessId`: a merchant's own business (the server allows no other). */
export function CollectionsPage({ title, base, businessId }: { title: string; base: string; businessId?: number }) {
  const { query } = useLocation();
  const search = searchOf(query);
  const list = useQuery({
    queryKey: ['collections', businessId ?? 'all', search],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/collections', { params: { query: { ...queryOf(search), business_id: businessId } } })),
  });
  return (
    <>
      <h1>{title}</h1>
      <SearchForm key={query.toString()} base={base} search={search} error={list.error} />
      <WindowLine search={search} total={list.data?.total} />
      {list.isPending && <Loading what={title.toLowerCase()} />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && <CollectionTable base={base} rows={list.data.items} search={search} pages={list.data.pages} />}
    </>
  );
}

export function CollectionPage({ reference, operator }: { reference: string; operator: boolean }) {
  const one = useQuery({
    queryKey: ['collection', reference],
    queryFn: () => unwrap(admin.GET('/v1/admin/collections/{gateway_reference}', { params: { path: { gateway_reference: reference } } })),
  });
  if (one.isPending) return <Loading what="the collection" />;
  if (one.error) return <LoadError error={one.error} retry={() => one.refetch()} />;
  const c = one.data.data;
  return (
    <>
      <h1>
        {operator ? 'Collection' : 'Payment'} <code>{c.gateway_reference}</code>
      </h1>
      <p>
        {operator && (
          <>
            Business <Link to={`/businesses/${c.business_id}`}>#{c.business_id}</Link>
          </>
        )}
        {c.fx_rate !== null && ` · converted at ${c.fx_rate}`}
        {c.card && ` · card ${c.card.masked_number}`}
      </p>
      <Section title="Payment">
        <CollectionSummary c={c} />
      </Section>
      <Deliveries reference={c.gateway_reference} final={c.transaction_status !== 'PENDING'} />
      {operator && <Routing routing={c.routing} />}
      <Postings postings={c.postings} />
    </>
  );
}

function Routing({ routing }: { routing: Admin['Routing'] }) {
  return (
    <Section title="Routing decision">
      <p>{routing.mid_id === null ? 'No MID was recorded for this collection.' : `Routed to MID #${routing.mid_id} (rank ${routing.processing_rank}).`}</p>
      {routing.candidates.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">MID</th>
                <th scope="col">Rank</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {routing.candidates.map((m) => (
                <tr key={m.mid_id}>
                  <td>#{m.mid_id}</td>
                  <td>{m.processing_rank}</td>
                  <td>{m.chosen ? 'chosen' : `passed over: ${m.reason}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function Postings({ postings }: { postings: Admin['Posting'][] }) {
  return (
    <Section title="Ledger postings">
      {postings.length === 0 ? (
        <p>No postings: money moves only when a collection completes.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Journal</th>
                <th scope="col">Account</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">At</th>
              </tr>
            </thead>
            <tbody>
              {postings.map((p) => (
                <tr key={p.id}>
                  <td>{p.journal_id}</td>
                  <td>{p.account}</td>
                  <td>{p.kind}</td>
                  <td className="num">
                    <Money amount={p.amount} currency={p.currency} />
                  </td>
                  <td>
                    <Time at={p.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
