// The float's forms: a server's question during a call, the Prompts menu and a result's
// resource links. What the user types is kept across redraws.
'use strict';

// The question a server asks during a call: its form (or its URL, opened only on the user's
// click). What the user types is kept across redraws until they answer.
function questionSection(q) {
  if (float.draft?.id !== q.id) float.draft = { id: q.id, values: {} };
  const values = float.draft.values;
  const refused = el('div', { class: 'refused' });
  // The core answers with why the bridge refused an answer; the form stays as typed.
  const answer = async (kind, content) => {
    const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.ANSWER, questionId: q.id, answer: kind, content } });
    refused.textContent = reply?.type === RESPONSE.ERROR ? reply.message : '';
  };
  const box = el('div', { class: 'question' }, el('strong', {}, q.title || ''), el('div', {}, q.message || ''), refused);
  const form = el('form', { class: 'fields' });
  for (const f of q.fields || []) {
    const id = `mcpq-${f.name}`;
    const label = el('label', { for: id }, f.label || f.name, f.required ? ' *' : '');
    const start = f.name in values ? values[f.name] : f.default;
    let input;
    if (f.kind === 'boolean') {
      input = el('input', { id, type: 'checkbox' });
      input.checked = start === true;
      input.addEventListener('change', () => { values[f.name] = input.checked; });
    } else if (f.kind === 'choice') {
      input = el('select', { id }, el('option', { value: '' }, ''),
        ...(f.options || []).map((o) => el('option', { value: o.value }, o.label || o.value)));
      input.value = start == null ? '' : String(start);
      input.addEventListener('change', () => { values[f.name] = input.value; });
    } else if (f.kind === 'multi') {
      const chosen = new Set(Array.isArray(start) ? start : []);
      input = el('span', { id });
      for (const o of f.options || []) {
        const box2 = el('input', { type: 'checkbox', value: o.value });
        box2.checked = chosen.has(o.value);
        box2.addEventListener('change', () => {
          if (box2.checked) chosen.add(o.value); else chosen.delete(o.value);
          values[f.name] = [...chosen];
        });
        input.append(el('label', {}, box2, o.label || o.value));
      }
      values[f.name] = [...chosen];
    } else {
      const number = f.kind === 'number' || f.kind === 'integer';
      input = el('input', { id, type: number ? 'number' : 'text' });
      if (f.kind === 'integer') input.step = '1';
      if (f.kind === 'number') input.step = 'any';
      input.value = start == null ? '' : String(start);
      input.addEventListener('input', () => { values[f.name] = input.value; });
    }
    if (f.description) input.title = f.description;
    form.append(el('div', { class: 'field', 'data-field': f.name }, label, input));
  }
  // The form's values as the user gave them (text as typed, a checkbox's true or false, the
  // boxes ticked): the core reads them in the types the question's schema asks for, leaves
  // empty ones out, and refuses one that is not of its type.
  const content = () => {
    const out = {};
    for (const f of q.fields || []) out[f.name] = f.name in values ? values[f.name] : f.default;
    return out;
  };
  const row = el('div', { class: 'row' });
  const button = (key, action) => row.append(el('button', { type: 'button', 'data-action': key, onclick: action }, T(key)));
  if (q.mode === 'url') {
    // The core offers an address only when it is an absolute http(s) URL; otherwise it
    // says why there is none, and the user can only decline or cancel.
    if (q.url) {
      box.append(el('div', { class: 'url' }, q.url));
      button('floatOpenUrl', () => window.open(q.url, '_blank', 'noopener'));
      button('floatUrlDone', () => answer('accept'));
    } else {
      box.append(el('div', { class: 'url-refused' }, q.urlRefused || ''));
    }
  } else {
    box.append(form);
    button('floatSubmitAnswer', () => answer('accept', content()));
  }
  button('floatDecline', () => answer('decline'));
  button('floatCancelQuestion', () => answer('cancel'));
  box.append(row);
  return box;
}
// ---- the Prompts menu: what the servers offer (the core lists it and puts the chosen one
// into the chat input); the form keeps what the user typed across redraws ----------------

const useItem = (item, values) => send({ type: TAB.USER_ACTION, action: { action: ACTION.USE_ITEM, ...item, values } });

async function openMenu() {
  float.prompts = float.prompts ? null : { items: null, pick: null, values: {}, error: '' };
  render(floatState);
  if (!float.prompts) return;
  const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.MENU } });
  if (!float.prompts) return;
  float.prompts.items = reply?.type === RESPONSE.MENU ? reply.menu.items : [];
  float.prompts.error = reply?.type === RESPONSE.ERROR ? reply.message : '';
  render(floatState);
}

/** The server's suggestions for a field, as the input's datalist. */
async function suggest(it, f, input, list) {
  if (it.kind === 'resource') return;
  const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.COMPLETE, server: it.server,
    kind: it.kind, name: it.name, argument: f.name, value: input.value, context: float.prompts?.values || {} } });
  if (reply?.type === RESPONSE.COMPLETIONS) list.replaceChildren(...reply.values.map((v) => el('option', { value: v })));
}

function menuSection(m) {
  const box = el('div', { class: 'menu' }, el('div', { class: 'refused' }, ...rich(m.error)));
  if (!m.items) {
    box.append(el('div', {}, T('floatMenuLoading')));
    return box;
  }
  if (!m.items.length && !m.error) box.append(el('div', {}, T('floatMenuEmpty')));
  if (!m.items.length) return box;
  // Prompts and resources in groups of their own, each named.
  const group = (kind, key) => {
    const options = m.items.map((it, i) => [it, i]).filter(([it]) => it.kind === kind)
      .map(([it, i]) => el('option', { value: String(i) }, it.line));
    return options.length ? el('optgroup', { label: T(key) }, ...options) : null;
  };
  const select = el('select', { 'aria-label': T('floatPrompts') }, el('option', { value: '' }, T('floatMenuChoose')),
    group('prompt', 'floatMenuPromptsGroup'), group('resource', 'floatMenuResourcesGroup'));
  select.value = m.pick == null ? '' : String(m.pick);
  select.addEventListener('change', () => { m.pick = select.value === '' ? null : Number(select.value); m.values = {}; m.error = ''; render(floatState); });
  box.prepend(select);
  const it = m.items[m.pick];
  if (!it) return box;
  if (it.description) box.append(el('div', { class: 'desc' }, it.description));
  const form = el('form', { class: 'fields' });
  for (const f of it.fields) {
    const id = `mcpm-${f.name}`;
    const list = el('datalist', { id: `${id}-list` });
    const input = el('input', { id, type: 'text', list: list.id });
    input.value = m.values[f.name] ?? '';
    if (f.description) input.title = f.description;
    input.addEventListener('input', () => { m.values[f.name] = input.value; suggest(it, f, input, list); });
    input.addEventListener('focus', () => suggest(it, f, input, list), { once: true });
    form.append(el('div', { class: 'field', 'data-field': f.name }, el('label', { for: id }, f.name, f.required ? ' *' : ''), input, list));
  }
  const go = async () => {
    const reply = await useItem({ server: it.server, kind: it.kind, name: it.name }, m.values);
    if (reply?.type === RESPONSE.ERROR) m.error = reply.message; else float.prompts = null;
    render(floatState);
  };
  // The menu's action is the main one while an item is chosen (the float's own row steps back).
  box.append(form, el('div', { class: 'row' }, el('button', { type: 'button', 'data-action': 'floatMenuUse', class: 'primary', onclick: go },
    it.kind === 'prompt' ? T('floatMenuUse') : T('floatMenuAttach'))));
  return box;
}

// A result's resource links, each attached the way the menu's resources are.
const linksSection = (links) => el('div', { class: 'links' }, ...links.map((l) => el('div', { class: 'rlink' }, el('span', {}, l.label),
  el('button', { type: 'button', 'data-action': 'floatAttachLink', onclick: () => useItem({ server: l.server, kind: 'resource', name: l.uri }) },
    T('floatMenuAttach')))));
