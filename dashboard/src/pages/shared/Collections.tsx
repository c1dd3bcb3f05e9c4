// Collections: the search (an operator's over every business, by business too, a merchant's over its
// own), and one collection with its business, narration, customer and delivery log; operators also see
// its processor request (resolving a held one) with its references, its checkout and routing decision.
// Ledger postings are shown as the API gives them: a merchant's people get their wallets' only.
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link, useLocation } from '../../router';
import { CollectionSummary, CollectionTable, queryOf, SearchForm, searchOf, WindowLine } from '../../ui/collections';
import type { BusinessChoice } from '../../ui/collections';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Money, Section, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { CollectionsCsvLink } from '../../ui/downloads';
import { ProcessorRequest } from '../operator/ProcessorRequest';
import { Deliveries } from './Deliveries';
import { Refunds } from './Refund';

/** `businessId`: a merchant's own business (the server allows no other). */
export function CollectionsPage({ title, base, businessId }: { title: string; base: string; businessId?: number }) {
  const { query } = useLocation();
  const search = searchOf(query);
  const operator = businessId === undefined;
  const { list, pages } = useCursorList(['collections', businessId ?? 'all', search], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/collections', { params: { query: { ...queryOf(search), business_id: operator ? queryOf(search).business_id : businessId, cursor } } })),
  );
  const businesses = useQuery({
    queryKey: ['business-choices'],
    enabled: operator,
    queryFn: async (): Promise<BusinessChoice[]> => (await unwrapPage(admin.GET('/v1/admin/businesses', { params: { query: { per_page: 100 } } }))).items,
  });
  return (
    <>
      <h1>{title}</h1>
      <SearchForm
        key={query.toString()}
        base={base}
        search={operator ? search : { ...search, business_id: undefined }}
        error={list.error}
        businesses={operator ? (businesses.data ?? []) : undefined}
      />
      <WindowLine search={search} total={list.data?.total} />
      {operator && search.held && <HeldNextSteps />}
      <CollectionsCsvLink search={search} businessId={businessId} />
      {list.isPending && <Loading what={title.toLowerCase()} />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length > 0 && <CollectionTable base={base} rows={list.data.items} business={operator} held={operator && search.held} label={`${title} found`} />}
      <Pager pages={pages} />
    </>
  );
}

/** What an operator does with a held payment, above the list of them. */
function HeldNextSteps() {
  return (
    <Section title="What to do with a held payment">
      <p>
        A held payment stays PENDING: it is not credited and does not expire until an operator decides. The processor confirmed another
        amount or currency than was asked, or answered something that settles nothing by itself.
      </p>
      <ol>
        <li>Open the payment and look it up at the processor with our reference there (under Processor request).</li>
        <li>If the customer paid what was asked, resolve it as COMPLETED: it is credited and the merchant is notified.</li>
        <li>If the processor shows no such payment, or one that cannot be accepted, resolve it as FAILED: nothing is credited and the merchant is notified.</li>
        <li>Write in the note what you checked; the decision is taken once and kept with your name.</li>
      </ol>
      <p className="hint">Only operator admins resolve a held payment; support sees it without the form.</p>
    </Section>
  );
}

export function CollectionPage({ reference, operator }: { reference: string; operator: boolean }) {
  const one = useQuery({
    queryKey: ['collection', reference],
    queryFn: () => unwrap(admin.GET('/v1/admin/collections/{gateway_reference}', { params: { path: { gateway_reference: reference } } })),
  });
  if (one.isPending) return <Loading what="the collection" />;
  if (one.error) return <LoadError error={one.error} retry={() => one.refetch()} list={operator ? { to: '/collections', name: 'the collections' } : { to: '/payments', name: 'the payments' }} />;
  const c = one.data.data;
  return (
    <>
      <h1>
        {operator ? 'Collection' : 'Payment'} <code>{c.gateway_reference}</code>
      </h1>
      <p>
        {operator ? (
          <>
            Business <Link to={`/businesses/${c.business_id}`}>{c.business_name}</Link>
          </>
        ) : (
          c.business_name
        )}
        {c.fx_rate !== null && ` · converted at ${c.fx_rate}`}
        {c.card && ` · card ${c.card.masked_number}`}
      </p>
      <Section title="Payment">
        <CollectionSummary c={c} />
      </Section>
      <Refunds c={c} />
      <Deliveries reference={c.gateway_reference} final={c.transaction_status !== 'PENDING'} />
      {operator && c.processor_request && <ProcessorRequest reference={c.gateway_reference} request={c.processor_request} />}
      {operator && c.checkout && <Checkout checkout={c.checkout} />}
      {operator && <Routing routing={c.routing} />}
      <Postings postings={c.postings} />
    </>
  );
}

/** The checkout on the processor's own pages, as the operator needs it to find the payment there. */
function Checkout({ checkout }: { checkout: NonNullable<Admin['AdminCollection']['checkout']> }) {
  return (
    <Section title="Processor checkout">
      <dl className="pairs">
        <dt>Processor's reference</dt>
        <dd>{checkout.vendor_reference ? <code>{checkout.vendor_reference}</code> : 'not given yet'}</dd>
        <dt>Checkout page</dt>
        <dd>{checkout.url ? <a href={checkout.url}>{checkout.url}</a> : 'not given yet'}</dd>
        <dt>Started</dt>
        <dd>
          {checkout.attempts} time{checkout.attempts === 1 ? '' : 's'}
        </dd>
      </dl>
    </Section>
  );
}

function Routing({ routing }: { routing: Admin['Routing'] }) {
  return (
    <Section title="Routing decision">
      <p>{routing.mid_id === null ? 'No MID was recorded for this collection.' : `Routed to MID #${routing.mid_id} (rank ${routing.processing_rank}).`}</p>
      {routing.candidates.length > 0 && (
        <DataTable
          rows={routing.candidates}
          rowKey={(m) => m.mid_id}
          columns={[
            { head: 'MID', cell: (m) => `#${m.mid_id}` },
            { head: 'Rank', cell: (m) => m.processing_rank },
            { head: 'Outcome', cell: (m) => (m.chosen ? 'chosen' : `passed over: ${m.reason}`) },
          ]}
        />
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
        <DataTable
          rows={postings}
          rowKey={(p) => p.id}
          columns={[
            { head: 'Journal', cell: (p) => p.journal_id },
            { head: 'Account', cell: (p) => p.account },
            { head: 'Kind', cell: (p) => p.kind },
            { head: 'Amount', num: true, cell: (p) => <Money amount={p.amount} currency={p.currency} /> },
            { head: 'At', cell: (p) => <Time at={p.created_at} /> },
          ]}
        />
      )}
    </Section>
  );
}
