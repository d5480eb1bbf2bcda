// Redesigned pages, generated: on every fixture site, a seeded sample of the variants a
// front-end rewrite makes (support/variants.mjs: classes and test ids renamed, wrappers
// added, the send control moved in the DOM, message element kinds changed, messages that say
// nothing of whose they are, aria labels reworded), in Chromium and Firefox. On each, a
// successful call, a failing one and a fenced one are each run and reported once. Every
// other sampled variant streams its answers at a token-like pace drawn from the seed, with
// stalls longer than the settle window (fixtures' `pacer`); the rest stream 40 characters per 20 ms.
// `VARIANT_SEED` draws another sample; `node tests/e2e/bench_variants.mjs` measures them all.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { CHAT_SITES } from './support/fixtures.mjs';
import { startWorld } from './support/chat.mjs';
import { EDITOR_MARK, KNOBS, allVariants, exchange, sampleVariants, variantName } from './support/variants.mjs';

const SEED = Number(process.env.VARIANT_SEED || 1);
const PER_SITE = Number(process.env.VARIANTS_PER_SITE || 2);

for (const browser of BROWSERS) {
  describe(`generated redesigns in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    for (const [site, host] of CHAT_SITES.filter(([s]) => EDITOR_MARK[s])) {
      // The sample, and the names as shipped with every knob but `same`: the config's own
      // selectors meeting the new structure (a message area selector matching one wrapper).
      const shipped = allVariants(site).find((v) => !v.renamed && v.knobs.length === KNOBS.length - 1 && !v.knobs.includes('same'));
      const list = [...sampleVariants(site, PER_SITE, SEED), shipped];
      for (const [i, v] of list.filter((x, i) => list.findIndex((y) => y.path === x.path) === i).entries()) {
        const pace = i % 2 === 1 ? SEED * 7919 + i : null;
        test(`${site}, ${variantName(v)}${pace === null ? '' : ', token pace'}: each call runs and is reported once`, async () => {
          const checks = await exchange(w, site, host, v, { pace });
          assert.deepEqual(checks, { success: true, failure: true, fenced: true, once: true });
        });
      }
    }
  });
}
