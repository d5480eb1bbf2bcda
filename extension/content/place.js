// Where the float sits on the page: beside the chat, in a band clear of the input, or as
// the ring; read from the layout, never deciding what the float shows (float.js draws it).
'use strict';

// Where the float goes unless the user dragged it: never over the chat input or its send
// button, and never below a readable height (its title bar and buttons whole). Beside the
// chat where there is room at the right (as wide as fits, down to MIN_WIDTH); else at the
// right edge, in the free band nearest the bottom that is clear of the input, the send
// button and the newest answer. Where no band is tall enough it becomes the ring, which
// opens on demand; a float that needs the user (a prompt), or that the user opened, may
// then cover the answer, never the input. Its title bar and buttons sit on the edge
// nearest the input so they keep their place while the details grow or shrink. Where the
// user put it (open or minimised), it stays, but moves up clear of the input and the send
// button when it would cover them.
const EDGE = 16;
const CLEAR = 8;
const WIDTH = 360;
const MIN_WIDTH = 200;
// Under this width the title takes a line of its own, the title bar's buttons the next.
const NARROW = 300;
// The window's width without its scroll bar: what `right: 16px` is measured from.
const viewWidth = () => document.documentElement.clientWidth || innerWidth;
function placeFloat() {
  const node = float?.wrap.firstElementChild;
  if (!node) return;
  const keep = (site ? [parts.input, parts.send] : []).filter(Boolean).map((e) => e.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0);
  if (float.pos) {
    node.style.maxHeight = `${Math.max(120, innerHeight - 2 * EDGE)}px`;
    const { width, height } = node.getBoundingClientRect();
    const left = Math.max(0, Math.min(float.pos.left, viewWidth() - width));
    let top = Math.max(0, Math.min(float.pos.top, innerHeight - height));
    const hit = keep.filter((r) => left < r.right && r.left < left + width && top < r.bottom && r.top < top + height);
    if (hit.length) top = Math.max(0, Math.min(...hit.map((r) => r.top)) - CLEAR - height);
    Object.assign(node.style, { left: `${left}px`, top: `${top}px`, right: 'auto', bottom: 'auto' });
    node.classList.remove('docked');
    return;
  }
  const ring = node.classList.contains('ring');
  const answer = newestAnswerRect();
  const mayCover = !ring && (float.opened || floatState?.opens);
  const chatRight = Math.max(0, ...[...keep, ...(answer ? [answer] : [])].map((r) => r.right));
  const beside = viewWidth() - EDGE - (chatRight + CLEAR);
  const width = ring ? node.getBoundingClientRect().width
    : beside >= MIN_WIDTH ? Math.min(WIDTH, beside) : Math.min(WIDTH, viewWidth() - 2 * EDGE);
  if (!ring) {
    // What it needs, at the width it gets.
    node.style.width = `${width}px`;
    node.classList.toggle('narrow', width < NARROW);
    float.need = { height: readableHeight(node) };
  }
  let band = null;
  if (!ring && beside >= MIN_WIDTH) {
    band = { top: EDGE, bottom: innerHeight - EDGE };
  } else {
    const left = viewWidth() - EDGE - width;
    const across = (r) => r.right > left && r.left < viewWidth() - EDGE;
    const need = ring ? width : float.need?.height ?? 0;
    const bands = (obstacles) => freeBands(obstacles.filter(across)).filter((b) => b.bottom - b.top >= need);
    const found = bands(answer && !mayCover && !ring ? [...keep, answer] : keep);
    band = found[found.length - 1] ?? null;
    if (!band && mayCover) {
      // No band clear of the input is tall enough: the float keeps its readable height and
      // the window's bottom edge, over the input's top rather than shrunk.
      band = { top: EDGE, bottom: innerHeight - EDGE };
    }
  }
  // No room and not needed now: the ring, until there is room again or the user opens it.
  const auto = !band && !ring;
  const back = ring && float.auto && band && fitsAgain(keep, answer);
  if (auto || back) {
    float.auto = auto;
    render(floatState);
    return;
  }
  if (!band) band = { top: EDGE, bottom: innerHeight - EDGE };
  node.style.bottom = `${innerHeight - band.bottom}px`;
  const room = band.bottom - band.top;
  node.style.maxHeight = ring ? '' : `${Math.min(room, Math.max(float.need?.height ?? 0, innerHeight * 0.6))}px`;
  // A prompt, and a sentence that introduces a command, read top-down: never docked with
  // the title bar below them.
  node.classList.toggle('docked', !ring && node.dataset.status !== 'confirm' && !node.querySelector('.cmd.command'));
}

/** The vertical bands of the window (within EDGE) that none of `rects` (padded by CLEAR) crosses, top first. */
function freeBands(rects) {
  const spans = rects.filter((r) => r.bottom > r.top).map((r) => [r.top - CLEAR, r.bottom + CLEAR]).sort((a, b) => a[0] - b[0]);
  const out = [];
  let top = EDGE;
  for (const [from, to] of spans) {
    if (from > top) out.push({ top, bottom: Math.min(from, innerHeight - EDGE) });
    top = Math.max(top, to);
  }
  if (top < innerHeight - EDGE) out.push({ top, bottom: innerHeight - EDGE });
  return out.filter((b) => b.bottom > b.top);
}

/** Whether the open float, at the size it last needed, would find room again. */
function fitsAgain(keep, answer) {
  const need = float.need?.height ?? Infinity;
  const chatRight = Math.max(0, ...[...keep, ...(answer ? [answer] : [])].map((r) => r.right));
  if (viewWidth() - EDGE - (chatRight + CLEAR) >= MIN_WIDTH) return true;
  const left = viewWidth() - EDGE - Math.min(WIDTH, viewWidth() - 2 * EDGE);
  const across = (r) => r.right > left && r.left < viewWidth() - EDGE;
  return freeBands([...keep, ...(answer ? [answer] : [])].filter(across)).some((b) => b.bottom - b.top >= need);
}

/**
 * The height at which the float is still readable: its title bar, action row and menus
 * whole, and the first lines of its details (they scroll).
 */
function readableHeight(box) {
  const style = getComputedStyle(box);
  let h = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  for (const part of box.children) {
    if (part.classList.contains('body')) h += Math.min(part.scrollHeight, 72);
    else if (part.classList.contains('menu')) h += Math.min(part.scrollHeight, 160);
    else h += part.getBoundingClientRect().height;
  }
  return Math.ceil(h);
}

/** The newest answer's columns and its visible rows (none when out of view), or null (read only, no detection). */
function newestAnswerRect() {
  if (!site) return null;
  const els = queryAll(site.selectors?.assistantMessage).filter((e) => !ours(e));
  const last = els.length ? els[els.length - 1] : parts.list?.isConnected ? parts.list.lastElementChild : null;
  if (!last) return null;
  const r = last.getBoundingClientRect();
  if (r.width <= 0) return null;
  // Scrolled out of view, it still tells where the chat column ends; it is clear at the window's edge.
  const top = Math.max(0, r.top), bottom = Math.max(top, Math.min(innerHeight, r.bottom));
  return { left: r.left, right: r.right, top, bottom };
}

// Placing the float reads the layout of the input, the send button and the float. From a
// timer, while an answer streams in, that forces a layout of the whole page which the next
// chunk throws away (one more layout each time, on a long answer a long task). In an
// animation frame it reads the layout the frame computes anyway. A hidden tab draws no
// frames, and has nothing to place until it is shown.
let placing = 0;
function placeSoon() {
  placing ||= requestAnimationFrame(() => { placing = 0; placeFloat(); });
}
