/** A new element with attributes (`class`, `data-*`, ...) and children; text children become text nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** A button that runs `action` when pressed. */
export function button(label: string, title: string, action: () => void): HTMLButtonElement {
  const pressed = el('button', { type: 'button', title }, label);
  pressed.addEventListener('click', action);
  return pressed;
}

/** A size as people read it: 1.4 KB, 2.0 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(1)} ${units[unit]}`;
}

/** A line that says what is going on (loading, an error), in place of a view. */
export function status(text: string, kind: 'info' | 'error' = 'info'): HTMLElement {
  return el('p', { class: `status ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
