import { button, el, status } from './dom.js';

const STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8];

/**
 * An image with zoom: fit to the width, 1:1, and steps in between (buttons, or Ctrl/⌘ + wheel). Shown from a
 * `data:` URI, which the host's default policy for views allows (`img-src data:`), so nothing is fetched.
 */
export function imageView(base64: string, mimeType: string, name: string): HTMLElement {
  const image = el('img', { alt: name, src: `data:${mimeType};base64,${base64}`, class: 'zoomable' });
  const frame = el('div', { class: 'image-frame' }, image);
  const label = el('span', { class: 'zoom-label' }, '');
  let scale = 0;

  /** 0: fit to the frame's width (never above 1:1). */
  const apply = (next: number) => {
    scale = next;
    const natural = image.naturalWidth || 1;
    const fit = Math.min(1, (frame.clientWidth || natural) / natural);
    const shown = scale === 0 ? fit : scale;
    image.style.width = `${Math.round(natural * shown)}px`;
    label.textContent = `${Math.round(shown * 100)}%${scale === 0 ? ' (fit)' : ''}`;
    image.dataset.scale = String(shown);
  };
  const current = () => Number(image.dataset.scale ?? '1');
  const zoomIn = () => apply(STEPS.find((s) => s > current() + 1e-9) ?? STEPS[STEPS.length - 1]!);
  const zoomOut = () => apply([...STEPS].reverse().find((s) => s < current() - 1e-9) ?? STEPS[0]!);

  image.addEventListener('load', () => apply(scale));
  // A type the browser cannot draw (TIFF, say): said in words rather than a broken image.
  image.addEventListener('error', () => frame.replaceChildren(status(`The browser cannot draw ${mimeType}.`, 'error')));
  frame.addEventListener(
    'wheel',
    (event) => {
      if (!event.ctrlKey && !event.metaKey) return;
      event.preventDefault();
      if (event.deltaY < 0) zoomIn();
      else zoomOut();
    },
    { passive: false },
  );
  const toolbar = el(
    'div',
    { class: 'toolbar' },
    button('−', 'Zoom out', zoomOut),
    button('+', 'Zoom in', zoomIn),
    button('Fit', 'Fit to the width', () => apply(0)),
    button('1:1', 'Actual size', () => apply(1)),
    label,
  );
  return el('section', { class: 'view image-view' }, toolbar, frame);
}
