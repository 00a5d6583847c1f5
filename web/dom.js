// @ts-check
// Making and finding elements.

/** @typedef {Node | string | number | boolean | null | undefined} Leaf */
/** @typedef {Leaf | Array<Leaf | Leaf[]>} Child what h() and append() take: nothing, text, a node, or a list of them */
/** @typedef {Record<string, unknown>} Attributes */

/**
 * The element `selector` finds, of the type the page's HTML gives it; throws when there is none.
 * @template {Element} T
 * @param {string} selector
 * @param {new () => T} type
 * @param {ParentNode} [root]
 * @returns {T}
 */
export function $(selector, type, root = document) {
  const el = root.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`the page has no ${type.name} ${selector}`);
  return el;
}

/**
 * Every element `selector` finds that is of `type`.
 * @template {Element} T
 * @param {string} selector
 * @param {new () => T} type
 * @param {ParentNode} [root]
 * @returns {T[]}
 */
export function $$(selector, type, root = document) {
  /** @type {T[]} */
  const found = [];
  for (const el of root.querySelectorAll(selector)) if (el instanceof type) found.push(el);
  return found;
}

/**
 * h("button", {class: "x", "data-testid": "y", onclick: fn}, "text", child…): attributes that
 * are properties are set as such (value, checked, hidden), handlers added, null ones left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes | null} attrs
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
      else if (name === "class") el.className = String(value);
      else if (name === "text") el.textContent = String(value);
      else if (name in el && !name.includes("-") && name !== "list" && name !== "form") Reflect.set(el, name, value);
      else el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * Adds children, arrays flattened, null ones left out, the rest as text.
 * @template {Element} E
 * @param {E} el
 * @param {Child[]} children
 */
export function append(el, children) {
  for (const child of children) {
    if (Array.isArray(child)) append(el, child);
    else if (child === undefined || child === null || child === false) continue;
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * @template {Element} E
 * @param {E} el
 */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/**
 * The values of the checked boxes in `root`.
 * @param {ParentNode} root
 */
export function checkedValues(root) {
  return $$("input:checked", HTMLInputElement, root).map((input) => input.value);
}
