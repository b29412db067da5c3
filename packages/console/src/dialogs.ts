import { field, h, replaceChildren } from './dom.js';

/**
 * Asks for an access key in a modal dialog; resolves with the key, or undefined when cancelled.
 * The key is not kept here: the caller stores it for the tab only.
 */
export function promptForKey(reason: string, headerName: string): Promise<string | undefined> {
  const input = h('input', { type: 'password', name: 'key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const dialog = h(
    'dialog',
    { class: 'key-dialog', 'aria-labelledby': 'key-dialog-title' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: 'key-dialog-title' }, 'Access key'),
      h('p', {}, reason),
      field('Access key', input, `Sent in the ${headerName} header; kept in this tab only (sessionStorage).`),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', value: 'cancel', formnovalidate: true, class: 'secondary' }, 'Cancel'),
        h('button', { type: 'submit', value: 'ok' }, 'Use key'),
      ),
    ),
  );
  return showModal(dialog, input).then((answer) => (answer === 'ok' && input.value.trim() ? input.value.trim() : undefined));
}

/** Asks to confirm a destructive action; resolves true when confirmed. */
export function confirmAction(title: string, message: string, confirmLabel: string): Promise<boolean> {
  const cancel = h('button', { type: 'submit', value: 'cancel', class: 'secondary' }, 'Cancel');
  const dialog = h(
    'dialog',
    { class: 'confirm-dialog', role: 'alertdialog', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-message' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: 'confirm-title' }, title),
      h('p', { id: 'confirm-message' }, message),
      h('div', { class: 'actions' }, cancel, h('button', { type: 'submit', value: 'ok', class: 'danger' }, confirmLabel)),
    ),
  );
  // The safe choice has the focus.
  return showModal(dialog, cancel).then((answer) => answer === 'ok');
}

/** Shows a dialog until it closes (a button, or Escape), then removes it; resolves its return value. */
function showModal(dialog: HTMLDialogElement, focus: HTMLElement): Promise<string> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const value = dialog.returnValue;
      dialog.remove();
      opener?.focus();
      resolve(value);
    });
    dialog.showModal();
    focus.focus();
  });
}

/** A message area: errors are announced (role=alert), other news politely (role=status). */
export function messageArea(): { element: HTMLElement; error(text: string): void; info(text: string): void; clear(): void } {
  const element = h('div', { class: 'message', role: 'status', 'aria-live': 'polite' });
  return {
    element,
    error(text) {
      element.className = 'message error';
      element.setAttribute('role', 'alert');
      replaceChildren(element, text);
    },
    info(text) {
      element.className = 'message info';
      element.setAttribute('role', 'status');
      replaceChildren(element, text);
    },
    clear() {
      element.className = 'message';
      replaceChildren(element);
    },
  };
}
