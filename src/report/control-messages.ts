import type { UpgradeState } from '../ports/timeline-event.js';
import { currentStepOf, isTerminal, type UpgradeJobData } from '../planning/upgrade-job-data.js';
import { mention } from './format-text.js';

/**
 * The sentences Pause / Resume / Abort answer with. They say what happens now and what cannot happen: AWS cannot
 * pause or stop an in-flight control-plane, add-on or node-group update, so the job says it will wait for it.
 */
export interface JobPosition {
  cluster: string;
  jobId: string;
  state: UpgradeState;
  stepTitle?: string;
  /** An AWS update this step issued or adopted, still being followed. */
  inFlight?: { operation: string; updateId: string };
  atGate: boolean;
  /** A rollback job (issue 10) rather than an upgrade. */
  rollback?: boolean;
  /** The guards holding the job (issue 29): it waits on its breach card, not on the pause controls. */
  heldBy?: string[];
}

const IN_FLIGHT_NAMES: Record<string, string> = {
  UpdateClusterVersion: 'control-plane update',
  UpdateAddon: 'add-on update',
  UpdateNodegroupVersion: 'node-group update',
  DeleteNodegroup: 'node-group deletion',
};

export function positionOf(data: UpgradeJobData, state: UpgradeState, atGate: boolean): JobPosition {
  const step = currentStepOf(data);
  const issued = step && step.id === data.steps[data.stepIndex]?.id ? Object.values(data.updates[step.id] ?? {}) : [];
  const latest = issued.sort((a, b) => b.at - a.at)[0];
  return {
    cluster: data.cluster,
    jobId: data.jobId,
    state,
    stepTitle: step?.title,
    inFlight: latest && (step?.kind === 'control-plane' || step?.kind === 'addons' || step?.kind === 'managed-nodegroups') ? { operation: latest.operation, updateId: latest.updateId } : undefined,
    atGate,
    ...(data.rollback ? { rollback: true } : {}),
    ...(data.guards?.hold ? { heldBy: data.guards.hold.guards } : {}),
  };
}

function at(position: JobPosition): string {
  return position.stepTitle ? ` at step '${position.stepTitle}'` : '';
}

function inFlightName(position: JobPosition): string {
  return IN_FLIGHT_NAMES[position.inFlight?.operation ?? ''] ?? 'update';
}

export function finishedMessage(position: JobPosition, verb: string): string {
  return `${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'} (job ${position.jobId}) has already ${position.state === 'succeeded' ? 'finished' : position.state}; there is nothing to ${verb}.`;
}

export function pauseMessage(position: JobPosition): string {
  const base = `Paused ${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'}${at(position)}.`;
  if (position.inFlight) {
    return `${base} AWS cannot pause an in-flight ${inFlightName(position)}; it will finish, then the job waits.`;
  }
  if (position.atGate) return `${base} The open gate can still be answered; the job waits after it until resumed.`;
  return `${base} It stops before the next step and waits until resumed.`;
}

export function alreadyPausedMessage(position: JobPosition, by?: string): string {
  return `${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'} is already paused${by ? ` (by ${mention(by)})` : ''}; press Resume to carry on.`;
}

export function resumeMessage(position: JobPosition): string {
  return `Resumed ${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'}; it carries on${at(position)}.`;
}

export function notPausedMessage(position: JobPosition): string {
  if (position.heldBy?.length) {
    const guards = position.heldBy.map((name) => `"${name}"`).join(', ');
    return `${position.cluster}'s upgrade is held by guard ${guards}, not by Pause: answer its breach card in the thread (Resume once the guard has recovered, Force with a reason, Roll back or Abort).`;
  }
  return `${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'} is not paused (it is ${position.state}); there is nothing to resume.`;
}

export function abortMessage(position: JobPosition): string {
  if (position.inFlight && position.rollback && position.inFlight.operation === 'UpdateClusterVersion') {
    return `Aborting ${position.cluster}'s rollback${at(position)}. While EKS is still rolling Auto Mode nodes back, the job cancels the rollback (CancelUpdate); once the control plane itself moves AWS cannot stop it (${position.inFlight.updateId}), and the job waits for it to end, then stops and posts a summary.`;
  }
  if (position.inFlight) {
    return `Aborting ${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'}${at(position)}. AWS cannot stop the in-flight ${inFlightName(position)} (${position.inFlight.updateId}); the job waits for it to end, then stops and posts a summary.`;
  }
  return `Aborting ${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'}${at(position)}. It stops before changing anything else and posts a summary in the thread.`;
}

export function alreadyAbortingMessage(position: JobPosition, by: string): string {
  return `${position.cluster}'s ${position.rollback ? 'rollback' : 'upgrade'} is already being aborted (requested by ${mention(by)}).`;
}

export function unknownJobMessage(jobId: string): string {
  return `There is no upgrade job ${jobId}. Use \`/eks-upgrade jobs\` to list running and recent jobs.`;
}

export function isFinished(state: UpgradeState): boolean {
  return isTerminal(state);
}
