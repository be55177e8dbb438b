// Block Kit → HTML for the playground page: messages (section with fields and accessories, header, divider,
// context, actions, image, rich_text), modals (input blocks with their elements) and confirm dialogs. Pure: blocks
// in, an HTML string out, every piece of text escaped (mrkdwn-html.js). Buttons carry what a click needs
// (action_id, value, confirm) in data- attributes; the page turns a click into a block_actions request.
import { escapeHtml, mrkdwnToHtml, textObjectToHtml } from './mrkdwn-html.js';

const asArray = (value) => (Array.isArray(value) ? value : []);
const attr = (value) => escapeHtml(value ?? '');

function unsupported(kind, type) {
  return `<div class="bk-unsupported">(${escapeHtml(kind)} <code>${escapeHtml(type ?? '?')}</code> is not shown in the playground)</div>`;
}

/** A button element; `disabled` for previews (an old version of a message). */
export function renderButton(element, blockId) {
  const style = element.style === 'primary' || element.style === 'danger' ? ` bk-button-${element.style}` : '';
  const confirm = element.confirm ? ` data-confirm="${attr(JSON.stringify(element.confirm))}"` : '';
  const value = element.value !== undefined ? ` data-value="${attr(element.value)}"` : '';
  const url = element.url ? ` data-url="${attr(element.url)}"` : '';
  return `<button type="button" class="bk-button${style}" data-action-id="${attr(element.action_id)}" data-block-id="${attr(blockId)}"${value}${confirm}${url}>${textObjectToHtml(element.text)}</button>`;
}

function renderImage(element) {
  // The page loads nothing from the internet (its CSP refuses it), so images show as their alt text.
  return `<span class="bk-image" role="img" aria-label="${attr(element.alt_text)}">🖼 ${escapeHtml(element.alt_text ?? 'image')}</span>`;
}

function renderElement(element, blockId, names) {
  switch (element?.type) {
    case 'button':
      return renderButton(element, blockId);
    case 'image':
      return renderImage(element);
    case 'mrkdwn':
    case 'plain_text':
      return `<span class="bk-text">${textObjectToHtml(element, names)}</span>`;
    default:
      return unsupported('element', element?.type);
  }
}

function renderSection(block, names) {
  const text = block.text ? `<div class="bk-section-text">${textObjectToHtml(block.text, names)}</div>` : '';
  const fields = asArray(block.fields).length
    ? `<div class="bk-fields">${asArray(block.fields).map((f) => `<div class="bk-field">${textObjectToHtml(f, names)}</div>`).join('')}</div>`
    : '';
  const accessory = block.accessory ? `<div class="bk-accessory">${renderElement(block.accessory, block.block_id, names)}</div>` : '';
  return `<div class="bk-section"><div class="bk-section-body">${text}${fields}</div>${accessory}</div>`;
}

function renderRichText(block, names) {
  const inline = (el) => {
    switch (el?.type) {
      case 'text': {
        let html = escapeHtml(el.text ?? '').replace(/\n/g, '<br>');
        if (el.style?.code) html = `<code>${html}</code>`;
        if (el.style?.bold) html = `<strong>${html}</strong>`;
        if (el.style?.italic) html = `<em>${html}</em>`;
        if (el.style?.strike) html = `<del>${html}</del>`;
        return html;
      }
      case 'link':
        return mrkdwnToHtml(`<${el.url}|${el.text ?? el.url}>`, names);
      case 'user':
        return mrkdwnToHtml(`<@${el.user_id}>`, names);
      case 'channel':
        return mrkdwnToHtml(`<#${el.channel_id}>`, names);
      case 'emoji':
        return mrkdwnToHtml(`:${el.name}:`, names);
      default:
        return '';
    }
  };
  const part = (el) => {
    const inner = asArray(el.elements).map((child) => (child.type === 'rich_text_section' ? part(child) : inline(child))).join('');
    switch (el.type) {
      case 'rich_text_preformatted':
        return `<pre>${inner}</pre>`;
      case 'rich_text_quote':
        return `<blockquote>${inner}</blockquote>`;
      case 'rich_text_list': {
        const tag = el.style === 'ordered' ? 'ol' : 'ul';
        return `<${tag}>${asArray(el.elements).map((item) => `<li>${part(item)}</li>`).join('')}</${tag}>`;
      }
      default:
        return `<div>${inner}</div>`;
    }
  };
  return `<div class="bk-rich-text">${asArray(block.elements).map(part).join('')}</div>`;
}

function renderInputElement(block) {
  const element = block.element ?? {};
  const name = attr(block.block_id);
  const id = `input-${name}`;
  const required = block.optional ? '' : ' required';
  const placeholder = element.placeholder ? ` placeholder="${attr(element.placeholder.text)}"` : '';
  const lengths = `${element.min_length ? ` minlength="${Number(element.min_length)}"` : ''}${element.max_length ? ` maxlength="${Number(element.max_length)}"` : ''}`;
  const options = asArray(element.options);
  switch (element.type) {
    case 'plain_text_input':
      return element.multiline
        ? `<textarea id="${id}" name="${name}" rows="4"${required}${placeholder}${lengths}>${escapeHtml(element.initial_value ?? '')}</textarea>`
        : `<input id="${id}" name="${name}" type="text" value="${attr(element.initial_value)}"${required}${placeholder}${lengths}>`;
    case 'number_input':
      return `<input id="${id}" name="${name}" type="number" value="${attr(element.initial_value)}"${required}${element.is_decimal_allowed ? ' step="any"' : ''}>`;
    case 'datepicker':
      return `<input id="${id}" name="${name}" type="date" value="${attr(element.initial_date)}"${required}>`;
    case 'timepicker':
      return `<input id="${id}" name="${name}" type="time" value="${attr(element.initial_time)}"${required}>`;
    case 'static_select':
      return `<select id="${id}" name="${name}"${required}><option value="">${escapeHtml(element.placeholder?.text ?? 'Choose…')}</option>${options
        .map((o) => `<option value="${attr(o.value)}"${element.initial_option?.value === o.value ? ' selected' : ''}>${escapeHtml(o.text?.text ?? o.value)}</option>`)
        .join('')}</select>`;
    case 'checkboxes':
    case 'radio_buttons': {
      const type = element.type === 'checkboxes' ? 'checkbox' : 'radio';
      const initial = new Set([...asArray(element.initial_options), element.initial_option].filter(Boolean).map((o) => o.value));
      return `<fieldset id="${id}" class="bk-choices" data-kind="${type}">${options
        .map((o) => `<label><input type="${type}" name="${name}" value="${attr(o.value)}"${initial.has(o.value) ? ' checked' : ''}> ${textObjectToHtml(o.text)}${o.description ? ` <small>${textObjectToHtml(o.description)}</small>` : ''}</label>`)
        .join('')}</fieldset>`;
    }
    default:
      return unsupported('input', element.type);
  }
}

function renderInput(block, errors) {
  const error = errors?.[block.block_id];
  const hint = block.hint ? `<div class="bk-hint">${textObjectToHtml(block.hint)}</div>` : '';
  const optional = block.optional ? ' <span class="bk-optional">(optional)</span>' : '';
  return `<div class="bk-input${error ? ' bk-input-error' : ''}"><label class="bk-label" for="input-${attr(block.block_id)}">${textObjectToHtml(block.label)}${optional}</label>${renderInputElement(block)}${hint}${error ? `<div class="bk-error" role="alert">${escapeHtml(error)}</div>` : ''}</div>`;
}

/** Message or modal blocks → HTML. `names` maps IDs to names for mentions; `errors` are a modal's, by block_id. */
export function renderBlocks(blocks, names = {}, errors = undefined) {
  return asArray(blocks)
    .map((block) => {
      switch (block?.type) {
        case 'section':
          return renderSection(block, names);
        case 'header':
          return `<div class="bk-header" role="heading" aria-level="3">${textObjectToHtml(block.text, names)}</div>`;
        case 'divider':
          return '<hr class="bk-divider">';
        case 'context':
          return `<div class="bk-context">${asArray(block.elements).map((e) => renderElement(e, block.block_id, names)).join('')}</div>`;
        case 'actions':
          return `<div class="bk-actions">${asArray(block.elements).map((e) => renderElement(e, block.block_id, names)).join('')}</div>`;
        case 'image':
          return `<div class="bk-image-block">${renderImage(block)}</div>`;
        case 'rich_text':
          return renderRichText(block, names);
        case 'input':
          return renderInput(block, errors);
        default:
          return unsupported('block', block?.type);
      }
    })
    .join('');
}

/** What a message shows: its blocks, or its text when it has none (Slack's rule), plus legacy attachments. */
export function renderMessageBody(message, names = {}) {
  const body = asArray(message.blocks).length ? renderBlocks(message.blocks, names) : `<div class="bk-section-text">${mrkdwnToHtml(message.text, names)}</div>`;
  const attachments = asArray(message.attachments)
    // The page's CSP allows no inline styles, so an attachment's colour bar is one neutral colour.
    .map((a) => `<div class="bk-attachment">${a.blocks ? renderBlocks(a.blocks, names) : mrkdwnToHtml(a.text ?? a.fallback ?? '', names)}</div>`)
    .join('');
  return body + attachments;
}

/** A modal view → the inside of a <form>: title, blocks with inputs and their errors, close and submit buttons. */
export function renderModal(view, errors = undefined, names = {}) {
  const title = textObjectToHtml(view.title);
  const submit = view.submit ? `<button type="submit" class="bk-button bk-button-primary">${textObjectToHtml(view.submit)}</button>` : '';
  const close = `<button type="button" class="bk-button" data-modal-close>${view.close ? textObjectToHtml(view.close) : 'Close'}</button>`;
  return `<header class="modal-header"><h2 id="modal-title">${title}</h2><button type="button" class="modal-x" data-modal-close aria-label="Close">×</button></header>`
    + `<div class="modal-body">${renderBlocks(view.blocks, names, errors)}</div>`
    + `<footer class="modal-footer">${close}${submit}</footer>`;
}

/** A button's confirm object → the inside of the confirmation dialog (Slack: title, text, confirm, deny, style). */
export function renderConfirm(confirm, names = {}) {
  const style = confirm.style === 'danger' ? 'bk-button-danger' : 'bk-button-primary';
  return `<h2 id="confirm-title">${textObjectToHtml(confirm.title ?? { type: 'plain_text', text: 'Are you sure?' })}</h2>`
    + `<div class="confirm-text">${textObjectToHtml(confirm.text, names)}</div>`
    + `<footer class="modal-footer"><button type="button" class="bk-button" data-confirm-answer="deny">${textObjectToHtml(confirm.deny ?? { type: 'plain_text', text: 'Cancel' })}</button>`
    + `<button type="button" class="bk-button ${style}" data-confirm-answer="confirm">${textObjectToHtml(confirm.confirm ?? { type: 'plain_text', text: 'Yes' })}</button></footer>`;
}
