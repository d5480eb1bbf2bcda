// Words cut in two where a line break between words would have done: a name, a command or an
// argument value drawn as code must break only when it is wider than its line.

/**
 * Runs in a page: every Latin word (a run of printable ASCII without spaces) in the float's
 * box, or in `arguments[0]` when given, that is laid out on two lines or more although it is
 * narrower than the block it sits in.
 */
export const BROKEN_WORDS = `
  const root = arguments[0] ?? document.querySelector('mcp-bridge-float')?.shadowRoot?.querySelector('.box');
  const broken = [];
  let words = 0;
  if (!root) return { broken, words };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.parentElement.checkVisibility()) continue;
    let block = node.parentElement;
    while (block.parentElement && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
    const style = getComputedStyle(block);
    const room = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    for (const m of node.textContent.matchAll(/[\\x21-\\x7e]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (!rects.length) continue;
      words += 1;
      const lines = new Set(rects.map((r) => Math.round(r.top))).size;
      const width = rects.reduce((sum, r) => sum + r.width, 0);
      // A code mark's own padding (a few px each side) counts against the room.
      if (lines > 1 && width + 8 <= room) broken.push(m[0] + ' (' + Math.round(width) + ' px in ' + Math.round(room) + ')');
    }
  }
  return { broken, words };`;
