// Modals (the bot's views, for the picked user) and Slack's confirm dialogs, both in native <dialog> elements so
// focus stays inside them and Esc closes them.
import { renderConfirm, renderModal } from './block-kit-html.js';
import { $, names, postJson, state, toast } from './page-state.js';

function openView() {
  const open = [...state.views.values()].filter((v) => v.event.user === state.user && v.event.state === 'open');
  return open.at(-1);
}

export function formValues(form) {
  const values = {};
  for (const block of form.querySelectorAll('.bk-input')) {
    const field = block.querySelector('[name]');
    if (!field) continue;
    const name = field.name;
    const choices = block.querySelector('fieldset.bk-choices');
    if (choices) {
      const picked = [...choices.querySelectorAll('input:checked')].map((i) => i.value);
      if (picked.length) values[name] = choices.dataset.kind === 'checkbox' ? picked : picked[0];
    } else if (field.value !== '') values[name] = field.value;
  }
  return values;
}

export function syncModal() {
  const dialog = $('modal-dialog');
  const form = $('modal-form');
  const view = openView();
  if (!view) {
    if (dialog.open) dialog.close();
    form.dataset.viewId = '';
    return;
  }
  const rev = `${view.event.id}:${view.rev}`;
  if (form.dataset.rev !== rev) {
    const typed = form.dataset.viewId === view.event.id ? formValues(form) : {};
    form.innerHTML = renderModal(view.event.view, view.event.errors, names());
    for (const [name, value] of Object.entries(typed)) {
      for (const field of form.querySelectorAll(`[name="${CSS.escape(name)}"]`)) {
        if (field.type === 'checkbox' || field.type === 'radio') field.checked = [].concat(value).includes(field.value);
        else field.value = value;
      }
    }
    form.dataset.rev = rev;
    form.dataset.viewId = view.event.id;
  }
  if (!dialog.open) dialog.showModal();
}

export async function closeView() {
  const viewId = $('modal-form').dataset.viewId;
  $('modal-dialog').close();
  if (viewId) await postJson('/slack/close', { userId: state.user, viewId }).catch((e) => toast(e.message));
}

export function askConfirm(confirm) {
  const dialog = $('confirm-dialog');
  dialog.innerHTML = renderConfirm(confirm, names());
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.removeEventListener('click', onClick);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onClick = (event) => {
      const answer = event.target.closest('[data-confirm-answer]')?.dataset.confirmAnswer;
      if (answer) done(answer === 'confirm');
    };
    const onCancel = (event) => {
      event.preventDefault();
      done(false);
    };
    dialog.addEventListener('click', onClick);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
  });
}
