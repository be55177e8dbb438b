import type { DoctorCheck } from '../ports/doctor-check.js';

/**
 * `doctor` in a terminal or Slack: one line per check — ✔ passed, ✘ failed (then what to add or change), ? not
 * checked (with why) — and a last line counting them. Pure.
 */
export function renderDoctorText(checks: readonly DoctorCheck[]): string {
  const lines = checks.flatMap((check) => {
    if (check.ok === true) return [`✔ ${check.id}: ${check.detail}`];
    if (check.ok === null) return [`? ${check.id}: not checked: ${check.detail}`];
    return [`✘ ${check.id}: ${check.detail}`, ...(check.fix ? [`    fix: ${check.fix}`] : [])];
  });
  const count = (ok: boolean | null) => checks.filter((c) => c.ok === ok).length;
  lines.push('', `${count(true)} passed, ${count(false)} failed, ${count(null)} not checked`);
  return `${lines.join('\n')}\n`;
}

export function doctorFailed(checks: readonly DoctorCheck[]): boolean {
  return checks.some((check) => check.ok === false);
}
