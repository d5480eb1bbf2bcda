// The options page shows one section at a time (the address's hash names it): what the tests
// use to open a section, or the section (and any folded details) holding an element.

/** The options page's address, opening `section` (Connection when none). */
export const optionsUrl = (base, section) => `${base}options/options.html${section ? `#${section}` : ''}`;

/** Opens the options page at `section` and waits until it has loaded. */
export async function openOptions(session, base, section) {
  const url = optionsUrl(base, section);
  // From the page itself, a new hash alone would not load it again: leave it first.
  if ((await session.url().catch(() => '')).split('#')[0] === url.split('#')[0]) await session.navigate('about:blank');
  await session.navigate(url);
  // A hash-only change reloads nothing: the page's section follows once `hashchange` ran.
  await session.waitForScript(`const shown = document.body.dataset.section;
    return document.body.dataset.ready === "true" && (shown === undefined || shown === ${JSON.stringify(section ?? 'connection')})`,
    { timeoutMs: 30000, what: 'the options page' });
}

/** Shows `section` of the open options page, as following its menu link does. */
export async function showSection(session, section) {
  await session.exec('location.hash = arguments[0]', section);
  await session.waitForScript(`return !document.getElementById(${JSON.stringify(section)}).hidden && location.hash === ${JSON.stringify(`#${section}`)}`, { what: `section ${section}` });
}

/**
 * Shows the section holding the element `css` and opens the details it is folded in, so a
 * person (and WebDriver) can reach it. Returns nothing; does nothing when there is no such element.
 */
export async function reveal(session, css) {
  const section = await session.exec(`const e = document.querySelector(arguments[0]);
    for (let d = e?.parentElement?.closest('details'); d; d = d.parentElement?.closest('details')) d.open = true;
    return e?.closest('main > section')?.id ?? null;`, css);
  if (section) await showSection(session, section);
}
