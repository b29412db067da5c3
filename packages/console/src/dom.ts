/** Attributes of {@link h}: `on*` functions become listeners, `false`/`undefined` are left out. */
export type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** A child of {@link h}: a node, text, or nothing. */
export type Child = Node | string | null | undefined | false;

/** Creates an element with attributes, listeners and children; text is always set as text, never as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

/** Appends the children that are not empty. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children)
    if (child !== null && child !== undefined && child !== false)
      parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
}

/** Replaces the children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

let nextId = 0;
/** A unique element id, for `for`/`aria-*` references. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A labelled control: `<label for>` and the control, in one `div.field`. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  control.id ||= uniqueId('field');
  const hintElement = hint ? h('p', { class: 'hint', id: `${control.id}-hint` }, hint) : undefined;
  if (hintElement) control.setAttribute('aria-describedby', hintElement.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintElement);
}
