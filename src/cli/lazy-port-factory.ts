/**
 * A port factory whose SDK adapter module is loaded on the first call, not at start-up: `status` never calls EC2,
 * SSM or Auto Scaling, and initialising those SDK clients' modules costs the CLI about a tenth of a second of CPU
 * at every start (bench P0, P2). Only for ports whose every member is an async method: each member of the port
 * returned waits for the module, then calls the real port's member. The real port is still made once per target by
 * the real factory, which keeps its own per-region cache.
 */
export function lazyPortFactory<T, P extends object>(load: () => Promise<(target: T) => P>): (target: T) => P {
  let factory: Promise<(target: T) => P> | undefined;
  return (target) => {
    let port: Promise<P> | undefined;
    const real = () => (port ??= (factory ??= load()).then((create) => create(target)));
    return new Proxy({} as P, {
      get: (_, member) =>
        member === 'then'
          ? undefined // not a thenable: `await port` must not call into it
          : (...args: unknown[]) => real().then((p) => (p[member as keyof P] as (...a: unknown[]) => unknown).apply(p, args)),
    });
  };
}
