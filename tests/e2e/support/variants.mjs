// The redesign variants of the fixture chat pages, generated: every combination of the
// knobs the pages understand (`?v=`, tests/fixtures/src/common.js) on the page as shipped and
// on its renamed build (`/redesign/`), sampled by a seeded generator so a run is repeatable
// and a new seed tries other combinations. One exchange per variant checks what a user
// needs: a successful call, a failing one and a call inside a fenced code block, each run
// and reported once.
import { call, openChat, userSays, userMessages } from './chat.mjs';
import { waitFor } from './webdriver.mjs';

/** What a front-end rewrite changes (see common.js): wrappers, order, element kinds, bare messages, labels. */
export const KNOBS = ['wrap', 'order', 'kinds', 'same', 'relabel'];

/** The chat input on any variant of a site's page: the editor library's own marks, which no redesign renames. */
export const EDITOR_MARK = {
  deepseek: 'textarea',
  chatgpt: '.ProseMirror',
  gemini: '.ql-editor',
  perplexity: '[data-lexical-editor="true"]',
  kimi: '[contenteditable="true"]',
  grok: '.tiptap',
  doubao: '[data-slate-editor="true"]',
};

/** The sites whose fixture also has a renamed build (tests/fixtures/build.mjs, `REDESIGN`). */
const RENAMED = new Set(['deepseek', 'chatgpt', 'gemini', 'perplexity', 'kimi']);

/** A small seeded generator (mulberry32), so a sample is the same for the same seed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hash = (s) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

/** Every variant of one site: `{ renamed, knobs, path }`, 2 × 2^5 of them (2^5 without a renamed build). */
export function allVariants(site) {
  const out = [];
  for (const renamed of RENAMED.has(site) ? [false, true] : [false]) {
    for (let mask = 0; mask < 1 << KNOBS.length; mask++) {
      const knobs = KNOBS.filter((_, i) => mask & (1 << i));
      const query = knobs.length ? `?v=${knobs.join(',')}` : '';
      out.push({ renamed, knobs, path: `${renamed ? '/redesign/' : '/'}${query}` });
    }
  }
  return out;
}

/** The variant's name in a report. */
export const variantName = (v) => `${v.renamed ? 'renamed' : 'shipped names'}${v.knobs.length ? ` + ${v.knobs.join('+')}` : ''}`;

/**
 * `n` variants of `site` drawn by `seed`, always beginning with the hardest two (renamed with
 * every knob but `same`, and with every knob), then the others in a seeded order.
 */
export function sampleVariants(site, n, seed = 1) {
  const all = allVariants(site);
  const top = all.some((v) => v.renamed);
  const hardest = all.filter((v) => v.renamed === top && v.knobs.length >= KNOBS.length - 1 && (v.knobs.length === KNOBS.length || !v.knobs.includes('same')));
  const rest = all.filter((v) => !hardest.includes(v));
  const next = random(hash(site) ^ seed);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [rest[i], rest[j]] = [rest[j], rest[i]];
  }
  return [...hardest, ...rest].slice(0, n);
}

/**
 * One exchange on a variant: the AI calls `echo`, then a tool that fails, then `echo` inside a
 * fenced code block, then the user asks once more (a marker call) so that anything run twice
 * would have shown before the marker's result. Returns which checks passed, never throws for
 * a check that failed (`timeoutMs` per step). `pace`: a seed for a token-like streaming pace.
 */
export async function exchange(w, site, host, variant, opts = {}) {
  const checks = { success: false, failure: false, fenced: false, once: false };
  try {
    return await steps(w, site, host, variant, checks, opts);
  } catch (e) {
    return { ...checks, error: String(e.message || e).split('\n')[0].slice(0, 160) };
  }
}

async function steps(w, site, host, variant, checks, { timeoutMs = 20000, tag = '', pace = null }) {
  const mark = `${site}${tag}`;
  // The bridge refuses a tool that failed three times in a row (its failure limit); each
  // exchange starts with a clean history so its failing call fails as itself.
  await fetch(`${w.bridge.url}/reset-history`, { method: 'POST', headers: { authorization: `Bearer ${w.bridge.token}` } });
  await openChat(w, host, variant.path);
  await w.session.exec('window.fixtureAI.reset()');
  await openChat(w, host, variant.path);
  // A token-like pace with stalls longer than the settle window (common.js `pacer`), or the
  // fixture's fixed 40 characters per 20 ms.
  if (pace !== null) await w.session.exec('window.fixtureAI.setChunk({ pace: arguments[0] })', pace);
  const fenced = `Here it is:\n\n\`\`\`json\n${call('echo', { text: `fenced ${mark}` })}\n\`\`\``;
  await userSays(w, 'Please run the tools.', [
    `Let me check.\n\n${call('echo', { text: `first ${mark}` })}`,
    `And now this one.\n\n${call('fail_runtime', { message: `broken ${mark}` })}`,
    fenced,
    'All done.',
  ], EDITOR_MARK[site]);
  const got = async (n) => {
    try {
      return await userMessages(w, n, timeoutMs);
    } catch {
      return null;
    }
  };
  let msgs = await got(2);
  checks.success = !!msgs && /<tool_result>/.test(msgs[1]) && msgs[1].includes(`first ${mark}`);
  msgs = checks.success && (await got(3));
  checks.failure = !!msgs && msgs[2].includes('fail_runtime') && msgs[2].includes(`broken ${mark}`);
  msgs = checks.failure && (await got(4));
  checks.fenced = !!msgs && msgs[3].includes(`fenced ${mark}`);
  if (!checks.fenced) return checks;
  // The marker: its result is the next message only if nothing above was delivered twice.
  try {
    await waitFor(() => w.session.exec('const ai = window.fixtureAI; return !ai.isGenerating() && ai.answers().length >= 4'),
      { timeoutMs, what: 'the last answer' });
    await userSays(w, 'One more.', [`Sure.\n\n${call('echo', { text: `marker ${mark}` })}`, 'Bye.'], EDITOR_MARK[site]);
    msgs = await userMessages(w, 6, timeoutMs);
    checks.once = msgs.length === 6 && msgs[5].includes(`marker ${mark}`)
      && ['first', 'broken', 'fenced'].every((k) => msgs.filter((m) => m.includes(`${k} ${mark}`)).length === 1);
  } catch {
    checks.once = false;
  }
  return checks;
}

/** Whether every check of an exchange passed. */
export const delivered = (c) => c.success && c.failure && c.fenced && c.once;
