/**
 * Which disruption passes may be skipped. At --speed 600 the 10-second pass falls due every ~17 ms real time and a
 * full pass clones the whole store, so an idle simulator kept a CPU core busy. A pass that wrote nothing, logged
 * nothing and left no work in progress is a function of the store, the cluster version and the clock alone, so
 * running it again before the store or the version changes, or before the earliest moment the clock alone could
 * change its outcome (a budget window opening or closing, a node's consolidateAfter running out, a deduplicated
 * event falling due again), would again do nothing. Skipped passes keep their slots, so the passes that do run
 * happen at the same sim times as before. Core Events do not count as changes: no pass reads them (the recorder
 * decides repeats from its own memory), so a pass whose only write is a repeated DisruptionBlocked event is quiet.
 */
export interface QuietPasses {
  /** Feed every store change here (the controller's store subscription does). */
  storeChanged(resource: string): void;
  /** True when the pass due at `now` would repeat the last quiet pass. */
  canSkip(now: number): boolean;
  /** Marks the start of a pass that runs. */
  begin(): void;
  /** A deduplicated event was suppressed (or published) in this pass and may be published again at `at`. */
  noteRepeat(at: number | undefined): void;
  /** Counts a log line written for the controller; a pass that logs is not quiet. */
  logged(): void;
  /**
   * Ends the pass. It is quiet when nothing but Events changed in the store since begin(), nothing was logged and
   * nothing is in progress; only then is `recheckAt` asked when the clock alone could next change its outcome.
   */
  end(outcome: { inProgress: boolean; recheckAt: () => number }): void;
}

export function createQuietPasses(deps: { version: () => string }): QuietPasses {
  let quiet: { changes: number; version: string; until: number } | undefined;
  let current: { changes: number; lines: number; repeatAt: number } | undefined;
  let changes = 0;
  let lines = 0;

  const version = (): string | undefined => {
    try {
      return deps.version();
    } catch {
      // An unreadable version is the pass's problem to report; here it only means "do not skip".
      return undefined;
    }
  };

  return {
    storeChanged(resource) {
      if (resource !== 'events') changes++;
    },
    canSkip(now) {
      if (!quiet || now >= quiet.until || quiet.changes !== changes) return false;
      return quiet.version === version();
    },
    begin() {
      quiet = undefined;
      current = { changes, lines, repeatAt: Infinity };
    },
    noteRepeat(at) {
      if (current && at !== undefined) current.repeatAt = Math.min(current.repeatAt, at);
    },
    logged() {
      lines++;
    },
    end({ inProgress, recheckAt }) {
      const pass = current;
      current = undefined;
      if (!pass || inProgress || lines !== pass.lines || changes !== pass.changes) return;
      const seenVersion = version();
      if (seenVersion === undefined) return;
      quiet = { changes, version: seenVersion, until: Math.min(pass.repeatAt, recheckAt()) };
    },
  };
}
