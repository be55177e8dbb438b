/**
 * Follows an SDK paginator (`paginateListClusters(...)` and friends) to the last page and concatenates one field
 * of every page. A list call that stopped at its first page would silently hide node groups or add-ons past the
 * 100th, so every list in the adapters goes through here.
 */
export async function collectPages<Page, Item>(
  paginator: AsyncIterable<Page>,
  pick: (page: Page) => Item[] | undefined,
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginator) items.push(...(pick(page) ?? []));
  return items;
}
