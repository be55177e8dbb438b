/**
 * Request bodies as Slack's Web API accepts them. @slack/web-api sends `application/x-www-form-urlencoded` with every
 * non-scalar argument (blocks, attachments, view, files…) JSON-encoded into a string; other clients send
 * `application/json`; the file-upload step of filesUploadV2 sends `multipart/form-data`. All three end up as one flat
 * object here, with the JSON-in-a-string fields decoded so handlers never see the transport.
 */

/** Arguments Slack documents as "a JSON-based array/object … presented as a URL-encoded string". */
const JSON_STRING_FIELDS = ['blocks', 'attachments', 'view', 'files', 'metadata', 'users', 'channels'] as const;

/** A malformed JSON field: answered as `{ ok: false, error: code }` like Slack does. */
export class SlackBodyError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export type SlackArgs = Record<string, unknown>;

export interface UploadedPart {
  /** Raw bytes of the uploaded file. */
  content: Buffer;
  filename?: string;
}

/** Parses an API method body (form, JSON or multipart) into arguments, decoding JSON-string fields. */
export async function parseSlackApiBody(contentType: string | undefined, raw: Buffer): Promise<SlackArgs> {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  let args: SlackArgs;
  if (type === 'application/json') {
    try {
      args = raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as SlackArgs);
    } catch (error) {
      throw new SlackBodyError('invalid_json', 'the JSON request body could not be parsed', { cause: error });
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      throw new SlackBodyError('invalid_json', 'the JSON request body must be an object');
    }
  } else if (type === 'multipart/form-data') {
    args = {};
    const form = await toFormData(contentType ?? '', raw);
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') args[key] = value;
    }
  } else {
    args = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }
  return decodeJsonStringFields(args);
}

/** Replaces JSON-string fields with their parsed value; `invalid_blocks_format` etc. when they are not JSON. */
export function decodeJsonStringFields(args: SlackArgs): SlackArgs {
  const decoded: SlackArgs = { ...args };
  for (const field of JSON_STRING_FIELDS) {
    const value = decoded[field];
    if (typeof value !== 'string') continue;
    // `users`/`channels` are also accepted as comma-separated lists: only decode what looks like JSON.
    if ((field === 'users' || field === 'channels') && !/^\s*[[{]/.test(value)) continue;
    try {
      decoded[field] = JSON.parse(value);
    } catch (error) {
      throw new SlackBodyError(`invalid_${field}_format`, `the ${field} argument is not valid JSON`, { cause: error });
    }
  }
  return decoded;
}

/**
 * The bytes of a file upload (the POST to an `upload_url`): web-api sends multipart/form-data with the file in a part,
 * curl-style clients send the raw bytes as the body. Both are accepted, as Slack does.
 */
export async function parseUploadBody(contentType: string | undefined, raw: Buffer): Promise<UploadedPart> {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'multipart/form-data') return { content: raw };
  const form = await toFormData(contentType ?? '', raw);
  for (const [, value] of form.entries()) {
    if (typeof value !== 'string') {
      return { content: Buffer.from(await value.arrayBuffer()), filename: value.name };
    }
  }
  const first = [...form.values()][0];
  return { content: Buffer.from(typeof first === 'string' ? first : '') };
}

/** Reads a boolean argument the way Slack does: form bodies carry "true"/"1", JSON bodies real booleans. */
export function flagArg(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** Reads an optional string argument (numbers from JSON bodies are stringified). */
export function stringArg(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

async function toFormData(contentType: string, raw: Buffer): Promise<FormData> {
  try {
    // Node's fetch Response implements a spec-compliant multipart parser: no hand-rolled boundary splitting.
    return await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new SlackBodyError('invalid_form_data', 'the multipart request body could not be parsed', { cause: error });
  }
}
