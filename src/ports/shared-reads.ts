/**
 * Concurrent read-only commands that ask for the same read share it (src/cluster-reader/shared-reads.ts): a burst of
 * `/eks-upgrade status prod` from one channel costs one read of prod's AWS and Kubernetes APIs, not one per command.
 */
export interface SharedReads {
  /**
   * Resolves with what `read` resolves (or rejects) for this command, read no earlier than this call: the caller joins
   * the read of `key` that starts next, never one already under way. `key` must name everything the read depends on;
   * whatever it resolves is shared between callers and must not be changed by any of them.
   */
  share<T>(key: string, read: () => Promise<T>): Promise<T>;
}
