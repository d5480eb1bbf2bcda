// The float's Prompts menu end to end: the real bridge running the real
// `@modelcontextprotocol/server-everything`, the fixture chat page. The user picks a prompt,
// is told which required argument is empty, fills it, and its text lands after what they had
// typed, unsent (prompts and resources listed as two named groups, the menu's action the main
// button); a field offers the server's completions; a resource is attached as a quoted
// block naming its URI; a `resource_link` of a tool's result is attached the same way.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatWait, floatFind, elementId, clickAt } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const EVERYTHING = path.join(ROOT, 'node_modules/.bin/mcp-server-everything');
const INPUT = 'textarea#chat-input';

const textOf = (w, ref) => w.session.cmd('GET', `/element/${elementId(ref)}/text`);

/** Types `text` with key presses into the focused element. */
async function keys(w, text) {
  await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keys',
    actions: [...text].flatMap((c) => [{ type: 'keyDown', value: c }, { type: 'keyUp', value: c }]) }] });
  await w.session.cmd('DELETE', '/actions');
}

/** Opens the menu (closed first if open) and picks the entry whose label holds `label`. */
async function pick(w, label) {
  if ((await floatFind(w, '.menu')).length) await w.session.click(elementId(await floatWait(w, 'button[data-action="floatPrompts"]')));
  await w.session.click(elementId(await floatWait(w, 'button[data-action="floatPrompts"]')));
  const option = await waitFor(async () => {
    for (const o of await floatFind(w, '.menu option')) if ((await textOf(w, o)).includes(label)) return o;
    return null;
  }, { what: `the menu entry ${label}`, timeoutMs: 20000 });
  await w.session.click(elementId(option));
}

const chatInput = (w) => w.session.exec(`return document.querySelector('${INPUT}').value`);

for (const browser of BROWSERS) {
  describe(`the Prompts menu in ${browser}`, () => {
    let w;
    before(async () => {
      const bridgeConfig = { mcpServers: { everything: { command: EVERYTHING, args: ['stdio'] } } };
      // Trusted, so its read-only tools run unasked.
      w = await startWorld(browser, { bridgeConfig, settings: { trustedServers: ['everything'] } });
      await openChat(w, 'chat.deepseek.com');
    });
    after(async () => { await w?.close(); });

    test('a prompt: its required argument is asked for, then it lands after the user\'s text, unsent', async () => {
      await w.session.type(await w.session.find(INPUT), 'My question first.');
      await pick(w, 'Arguments Prompt');
      await floatWait(w, '.field[data-field="city"] input', 'city field');
      assert.match(await textOf(w, await floatWait(w, '.field[data-field="city"] label')), /city \*/, 'required is marked');
      // Prompts and resources are named groups; the menu's action is the one main button.
      const attr = (ref, name) => w.session.cmd('GET', `/element/${elementId(ref)}/attribute/${name}`);
      const groups = [];
      for (const g of await floatFind(w, '.menu optgroup')) {
        const options = await w.session.cmd('POST', `/element/${elementId(g)}/elements`, { using: 'css selector', value: 'option' });
        groups.push([await attr(g, 'label'), await Promise.all(options.map((o) => w.session.cmd('GET', `/element/${elementId(o)}/property/textContent`)))]);
      }
      assert.deepEqual(groups.map(([label]) => label), ['Prompts', 'Resources'], JSON.stringify(groups));
      assert.ok(groups[0][1].some((t) => t.includes('Arguments Prompt')) && groups[1][1].length > 0, JSON.stringify(groups));
      const main = await Promise.all((await floatFind(w, 'button.primary')).map((b) => attr(b, 'data-action')));
      assert.deepEqual(main, ['floatMenuUse']);
      await w.session.click(elementId(await floatWait(w, 'button[data-action="floatMenuUse"]')));
      const refused = await waitFor(async () => {
        const [r] = await floatFind(w, '.menu .refused');
        const t = r ? await textOf(w, r) : '';
        return t || null;
      }, { what: 'the missing field named' });
      assert.match(refused, /city/);
      assert.equal(await chatInput(w), 'My question first.', 'nothing typed yet');
      // The refusal redrew the menu: the field is found again (and was kept empty).
      await clickAt(w, await floatWait(w, '.field[data-field="city"] input', 'city field'));
      await keys(w, 'Paris');
      await w.session.click(elementId(await floatWait(w, 'button[data-action="floatMenuUse"]')));
      const value = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('Paris') ? v : null;
      }, { what: 'the prompt in the chat input' });
      assert.equal(value, "My question first.\n\nWhat's weather in Paris?");
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 0, 'not sent');
      await waitFor(async () => (await floatFind(w, '.menu')).length === 0, { what: 'the menu to close' });
    });

    test("a field offers the server's completions", async () => {
      await pick(w, 'Team Management');
      await clickAt(w, await floatWait(w, '.field[data-field="department"] input', 'department field'));
      await keys(w, 'Eng');
      const option = await waitFor(async () => {
        for (const o of await floatFind(w, '.field[data-field="department"] datalist option')) {
          const v = await w.session.cmd('GET', `/element/${elementId(o)}/property/value`);
          if (v) return v;
        }
        return null;
      }, { what: 'a completion' });
      assert.equal(option, 'Engineering');
    });

    test('a resource is attached as a quoted block naming its URI', async () => {
      await w.session.exec(`const i = document.querySelector('${INPUT}');
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(i, '');
        i.dispatchEvent(new Event('input', { bubbles: true }));`);
      await pick(w, 'features.md');
      await w.session.click(elementId(await floatWait(w, 'button[data-action="floatMenuUse"]')));
      const value = await waitFor(async () => {
        const v = await chatInput(w);
        return v.startsWith('[resource:') ? v : null;
      }, { what: 'the resource in the chat input' });
      const lines = value.split('\n');
      assert.equal(lines[0], '[resource: demo://resource/static/document/features.md, text/markdown]');
      assert.ok(lines.length > 5 && lines.slice(1).every((l) => l === '>' || l.startsWith('> ')), value.slice(0, 400));
    });

    test("a tool result's resource link is offered and attached", async () => {
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Give me links.', [`Here.\n\n${call('get-resource-links', { count: 2 }, 'everything')}`, 'Done.']);
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /\[resource link: Text Resource 2 <demo:\/\/resource\/dynamic\/text\/2>\]/);
      const link = await waitFor(async () => {
        for (const l of await floatFind(w, '.links .rlink')) if ((await textOf(w, l)).includes('Text Resource 2')) return l;
        return null;
      }, { what: 'the link in the float' });
      const [attach] = await w.session.cmd('POST', `/element/${elementId(link)}/elements`, { using: 'css selector', value: 'button' });
      await w.session.click(elementId(attach));
      const value = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('demo://resource/dynamic/text/2') ? v : null;
      }, { what: 'the linked resource in the chat input' });
      assert.match(value, /^\[resource: demo:\/\/resource\/dynamic\/text\/2, text\/plain\]\n> Resource 2: This is a plaintext resource/);
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 2, 'not sent');
    });

    test('tools that changed since the instructions are said after the next call, and inserted again', async () => {
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await w.session.click(elementId(await floatWait(w, 'button[data-id="insert-instructions"]')));
      const instructions = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('list_tools_in_service') ? v : null;
      }, { what: 'the instructions in the chat input' });
      // Every tool is listed with its required parameters: no discovery round trip.
      assert.match(instructions, /\n  - get-sum\(a: number, b: number\): Returns the sum of two numbers\n/);
      assert.doesNotMatch(instructions, /- demo/);
      // The input is left as it is (the user writes after the instructions): clearing it now
      // could race the core's read-back of what it typed.
      // A server is added to the bridge meanwhile (its own demo server).
      const added = await fetch(`${w.bridge.url}/servers/demo`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${w.bridge.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: path.join(ROOT, 'target/release/mcp-bridge'), args: ['demo-server'] }),
      });
      assert.ok(added.ok, await added.text());
      await waitFor(async () => {
        const r = await fetch(`${w.bridge.url}/tools`, { headers: { authorization: `Bearer ${w.bridge.token}` } });
        return (await r.json()).services.some((s) => s.name === 'demo' && s.tool_count > 0);
      }, { what: 'the demo server running', timeoutMs: 30000 });
      await userSays(w, 'Echo.', [`Sure.\n\n${call('echo', { message: 'hi' }, 'everything')}`, 'Done.']);
      await userMessages(w, 2, 60000);
      const notice = await floatWait(w, '.notice', 'the notice');
      assert.match(await textOf(w, notice), /The tools of demo changed/);
      await w.session.click(elementId(await floatWait(w, 'button[data-action="floatUpdateInstructions"]')));
      const again = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('- demo') ? v : null;
      }, { what: 'the updated instructions' });
      assert.match(again, /\n- demo: [^\n]*\n(  - [^\n]*\n)*  - echo\(text: string\): /);
    });
  });
}
