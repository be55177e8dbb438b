/**
 * Answers to a read that may be reused for a while: callers asking the same key while a read is in flight share it,
 * and an answer `keep` accepts is handed out again until `reuseMs` has passed on `now` (a wall clock: what is
 * reused is the outside world's state). Failures, and answers `keep` refuses, are forgotten at once, so the next
 * caller asks again. Used for SelfSubjectAccessReviews (allowed ones only) and the add-on catalogue.
 */
export type ReusedAnswers<T> = (key: string, read: () => Promise<T>) => Promise<T>;

export function reusedAnswers<T>(options: { reuseMs: number; now: () => number; keep?: (answer: T) => boolean }): ReusedAnswers<T> {
  const answers = new Map<string, { answer: Promise<T>; until: number }>();
  return (key, read) => {
    const kept = answers.get(key);
    if (kept && options.now() < kept.until) return kept.answer;
    const entry = { answer: read(), until: Infinity };
    answers.set(key, entry);
    const forget = () => answers.get(key) === entry && answers.delete(key);
    entry.answer.then((answer) => {
      if (options.reuseMs > 0 && (options.keep?.(answer) ?? true)) entry.until = options.now() + options.reuseMs;
      else forget();
    }, forget);
    return entry.answer;
  };
}
