import type { WebClient } from '@slack/web-api';
import type { ChannelPoster } from '../ports/channel-poster.js';

/** ChannelPoster over chat.postMessage. Duplicates are the caller's business (the fleet worker claims each tick first). */
export function createChannelPoster(client: WebClient): ChannelPoster {
  return {
    async post(channel, message, threadTs) {
      const answer = await client.chat.postMessage({ channel, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}), ...(threadTs ? { thread_ts: threadTs } : {}) });
      if (!answer.ts) throw new Error(`Slack did not return the ts of the message posted to ${channel}`);
      return { ts: answer.ts };
    },
  };
}
