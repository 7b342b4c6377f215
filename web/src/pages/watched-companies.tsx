import { useState } from 'preact/hooks';
import { api } from '../api';
import { PageTitle, Status, useAsync } from '../components';
import { when } from '../format';
import { href } from '../router';

export function WatchedCompanies() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const list = useAsync(() => api.watches(search), [search]);

  return (
    <>
      <PageTitle>Watched companies</PageTitle>
      <p>Every company your systems fetched through the API. A change to any of them is sent to your webhook endpoints.</p>
      <search>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            setSearch(query);
          }}
        >
          <label for="watch-search">Find by name or number</label>
          <input id="watch-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
          <button type="submit" class="secondary">
            Search
          </button>
        </form>
      </search>
      {list.error ? <Status message={list.error} tone="error" /> : null}
      {list.value && list.value.items.length === 0 ? (
        <p>{search ? `No watched company matches "${search}".` : 'No watched companies yet: fetch a profile through the API.'}</p>
      ) : null}
      <ul class="cards">
        {list.value?.items.map((watch) => (
          <li key={`${watch.jurisdiction}-${watch.companyNumber}`}>
            <a href={href('companies', watch.jurisdiction, watch.companyNumber)}>{watch.name ?? watch.companyNumber}</a>
            <span class="meta">
              {watch.jurisdiction} {watch.companyNumber}
            </span>
            <span class="meta">First fetched {when(watch.watchedSince)}</span>
            <span class="meta">Last fetched {when(watch.lastFetchedAt)}</span>
          </li>
        ))}
      </ul>
    </>
  );
}
