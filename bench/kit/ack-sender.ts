import { spawn } from 'node:child_process';
import type { DeliveryRequest, DeliveryResult } from '@eks-upgrade-bot/sim/services';
import { ROOT, track, type Child } from './processes.js';

export interface AckSender extends Child {
  /** FakeSlackOptions.deliver: the request goes out from the sender process, and its ack is timed there. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}

/** Starts bench/kit/ack-sender-process.ts; its deliver() resolves with what that process measured. */
export async function startAckSender(): Promise<AckSender> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/kit/ack-sender-process.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { PATH: process.env.PATH ?? '' },
  });
  const tracked = track(child);
  const pending = new Map<number, (result: DeliveryResult) => void>();
  let nextId = 0;
  child.on('message', (message: { id: number; result: DeliveryResult }) => {
    if (message.result === undefined) return;
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  child.once('exit', (code) => {
    for (const resolve of pending.values()) resolve({ status: 0, body: `the ack sender exited (${code})`, ackMs: 0 });
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ack sender did not start within 60 s:\n${tracked.output()}`)), 60_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`the ack sender exited (${code}):\n${tracked.output()}`)));
  });
  return {
    ...tracked,
    deliver(request) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ id, request });
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await tracked.stop();
    },
  };
}
