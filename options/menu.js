// The options page's sections, one at a time: the address's hash names the one shown (so a
// link, a bookmark and a reload open it), Connection when it names none. Loaded before the
// other modules, which wait for the core, so the right section shows from the start.
const links = [...document.querySelectorAll('#menu a')];
const ids = links.map((a) => a.hash.slice(1));

function show() {
  const wanted = location.hash.slice(1);
  const id = ids.includes(wanted) ? wanted : ids[0];
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== id;
  for (const a of links) {
    if (a.hash === `#${id}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.body.dataset.section = id;
}

// Following a link changes the hash; the page starts at its top, not at the section's edge.
window.addEventListener('hashchange', () => {
  show();
  window.scrollTo(0, 0);
});
show();
