/**
 * Acks first: the work that follows an ack (a status read handed to the workers, a usage reply posted to the
 * response_url) waits for a later turn of the event loop, one piece a turn. Node handles every request that has
 * arrived in one poll phase before it runs the immediates queued there, so in a burst of commands each is acked
 * before any of their follow-up work starts, and follow-up work started later gives way to commands arriving between
 * its pieces. Slack gives an app 3 s to ack and shows the user an error after that (bench P1: under a burst, the bot's
 * acks waited behind earlier commands' follow-up work).
 */
export interface AfterAcks {
  /** Resolves on a later turn of the event loop, after the requests that arrived before it have been handled. */
  turn(): Promise<void>;
}

export function createAfterAcks(): AfterAcks {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const runOne = () => {
    // One waiter a turn: an immediate queued while immediates run waits for the next turn, after its poll phase.
    waiting.shift()?.();
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(runOne);
  };
  return {
    turn() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!scheduled) {
          scheduled = true;
          setImmediate(runOne);
        }
      });
    },
  };
}
