// The host side of an MCP App view (the `io.modelcontextprotocol/ui` extension, protocol
// 2026-01-26: JSON-RPC 2.0 over postMessage). This extension page is framed in the float;
// it frames the view, served once by the bridge, in `<iframe sandbox="allow-scripts">` (an
// opaque origin: the view reaches neither this page, nor the chat page, nor the extension's
// storage, and never sees the bridge token). It answers `ui/initialize`, hands the view the
// tool's input and result, and relays what the view asks to the worker, where the core
// decides; it carries the answer back. Only messages from the view's own frame are read.
'use strict';

const { tab: TAB, viewAsk: ASK, response: RESPONSE } = globalThis.MCP_BRIDGE;

/** The protocol's method names, in one place. */
const METHOD = Object.freeze({
  INITIALIZE: 'ui/initialize',
  INITIALIZED: 'ui/notifications/initialized',
  TOOL_INPUT: 'ui/notifications/tool-input',
  TOOL_RESULT: 'ui/notifications/tool-result',
  SIZE_CHANGED: 'ui/notifications/size-changed',
  MESSAGE: 'ui/message',
  OPEN_LINK: 'ui/open-link',
  TOOLS_CALL: 'tools/call',
  PING: 'ping',
});
const PROTOCOL_VERSION = '2026-01-26';
/** JSON-RPC's error codes for a method we do not offer and for a refusal. */
const NOT_FOUND = -32601;
const REFUSED = -32000;

const hash = new URLSearchParams(location.hash.slice(1));
const viewId = hash.get('view') || '';
const theme = hash.get('theme') === 'dark' ? 'dark' : 'light';
document.body.classList.toggle('dark', theme === 'dark');

const ask = (what) => chrome.runtime.sendMessage({ type: TAB.VIEW, view: viewId, ask: what })
  .catch((e) => ({ type: RESPONSE.ERROR, message: String(e) }));

/** Tells the float how high this page wants to be. */
function tellHeight() {
  parent.postMessage({ mcpBridgeViewHeight: document.documentElement.scrollHeight }, '*');
}

async function start() {
  const opened = await ask({ ask: ASK.OPEN });
  if (opened?.type !== RESPONSE.DATA) return;
  const view = opened.data;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = view.tool;
  frame.style.height = `${view.minHeight}px`;
  frame.src = view.url;
  document.body.prepend(frame);
  tellHeight();

  let failed = false;
  const fail = (why) => {
    if (failed) return;
    failed = true;
    ask({ ask: ASK.FAILED, why });
  };
  // A view that throws before it speaks, or never does, is said to have failed.
  let silent = setTimeout(() => fail(''), view.initMs);

  const post = (message) => frame.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const answer = (id, result) => post({ id, result });
  const refuse = (id, code, message) => post({ id, error: { code, message } });

  const links = document.getElementById('links');
  const offerLink = (url) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = `${view.openLink}: ${url}`;
    button.title = url;
    button.onclick = () => { window.open(url, '_blank', 'noopener,noreferrer'); button.remove(); tellHeight(); };
    links.append(button);
    tellHeight();
  };

  const handlers = {
    [METHOD.INITIALIZE]: () => {
      clearTimeout(silent);
      silent = 0;
      return {
        protocolVersion: PROTOCOL_VERSION,
        hostInfo: { name: 'MCP Bridge', version: chrome.runtime.getManifest().version },
        hostCapabilities: { openLinks: {}, serverTools: {}, message: { text: {} } },
        hostContext: {
          theme,
          locale: view.locale,
          displayMode: 'inline',
          availableDisplayModes: ['inline'],
          containerDimensions: { maxHeight: view.maxHeight, width: frame.clientWidth },
          platform: 'web',
          toolInfo: { tool: { name: view.tool, inputSchema: { type: 'object' } } },
        },
      };
    },
    [METHOD.PING]: () => ({}),
    [METHOD.TOOLS_CALL]: async (params) => {
      const r = await ask({ ask: ASK.CALL, name: String(params?.name ?? ''), arguments: params?.arguments ?? {} });
      if (r?.type === RESPONSE.DATA) return r.data;
      throw r?.message ?? 'refused';
    },
    [METHOD.MESSAGE]: async (params) => {
      const r = await ask({ ask: ASK.MESSAGE, content: params?.content ?? [] });
      return r?.type === RESPONSE.ERROR ? { isError: true } : {};
    },
    [METHOD.OPEN_LINK]: async (params) => {
      const url = String(params?.url ?? '');
      const r = await ask({ ask: ASK.LINK, url });
      if (r?.type === RESPONSE.ERROR) return { isError: true };
      offerLink(url);
      return {};
    },
  };
  const notified = {
    [METHOD.INITIALIZED]: () => {
      post({ method: METHOD.TOOL_INPUT, params: { arguments: view.toolInput ?? {} } });
      post({ method: METHOD.TOOL_RESULT, params: view.toolResult });
    },
    [METHOD.SIZE_CHANGED]: (params) => {
      const height = Number(params?.height);
      if (!Number.isFinite(height)) return;
      frame.style.height = `${Math.min(view.maxHeight, Math.max(view.minHeight, Math.ceil(height)))}px`;
      tellHeight();
    },
  };

  addEventListener('message', async (e) => {
    // The sandboxed frame's messages come from its window, with the opaque origin `null`.
    if (e.source !== frame.contentWindow || e.origin !== 'null') return;
    const m = e.data;
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0' || typeof m.method !== 'string') return;
    const isRequest = typeof m.id === 'string' || Number.isInteger(m.id);
    if (!isRequest) {
      notified[m.method]?.(m.params);
      return;
    }
    if (silent && m.method !== METHOD.INITIALIZE) return;
    const handle = handlers[m.method];
    if (!handle) {
      refuse(m.id, NOT_FOUND, `${m.method} is not offered by this host`);
      return;
    }
    try {
      answer(m.id, await handle(m.params));
    } catch (why) {
      refuse(m.id, REFUSED, String(why));
    }
  });
}

start();
