// What the playground page knows and a few things every part of it uses: the state, element lookup, mention
// names, JSON POSTs that turn an error answer into an exception, and the toast that shows such errors.
export const $ = (id) => document.getElementById(id);

/** Everything the page knows; the parts of the page read and update it in place. */
export const state = {
  settings: { channel: { id: '', name: '' }, users: [], clusters: [] },
  workspace: { users: {}, channels: {}, botUserId: '', botName: 'bot' },
  /** key → { event, rev } for messages, ephemerals and the page's own notes. */
  items: new Map(),
  views: new Map(),
  dismissed: new Set(),
  user: '',
  thread: undefined,
  cluster: undefined,
  sim: undefined,
  lastPanelHtml: '',
  noteSeq: 0,
};

export const names = () => ({ users: state.workspace.users, channels: state.workspace.channels });

export async function postJson(path, body, method = 'POST') {
  const response = await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({ ok: false, message: `${path} answered ${response.status}` }));
  if (!response.ok || answer.ok === false) throw new Error(answer.message ?? `${path} answered ${response.status}`);
  return answer;
}

export function toast(message) {
  const box = $('toast');
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}
