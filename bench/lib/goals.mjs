// Goal lines, shared by the groups' notes and bench/run.mjs's summary. A group's summary(rows) returns
// [{ goal, measured, met, issue? }]: `met` is true, false or undefined (not judged); `issue` names the issue whose
// goal it is. The relay-core issue's goals (#32) lead the summary, the context-economy issue's (#33) next; the goals
// of earlier issues (the performance issue, #13) follow, so a run still shows where those stand.

export const RELAY_CORE = '#32';
/** The context-economy issue: what the proxy does to real servers' results (bench/scenarios/context-economy.mjs). */
export const CONTEXT_ECONOMY = '#33';

/** The summary's sections, in order: lines whose `issue` is `issue` (undefined: every other line). */
export const SUMMARY_SECTIONS = [
  { issue: RELAY_CORE, title: 'Goals of the relay-core issue (#32)' },
  { issue: CONTEXT_ECONOMY, title: 'Goals of the context-economy issue (#33)' },
  { issue: '#35', title: 'Goals of progressive tool disclosure (#35)' },
  { issue: undefined, title: 'Earlier goals (the performance issue, and #13)' },
];

/** The summary section a line belongs to. */
export const sectionOf = (line) => SUMMARY_SECTIONS.find((s) => s.issue === line.issue) ?? SUMMARY_SECTIONS.at(-1);

/** "met", "not met" or "—" (not judged). */
export const verdict = (met) => (met === undefined ? '—' : met ? 'met' : 'not met');

/** The markdown a group writes under its table: its goal lines, grouped as in the summary. */
export function goalNotes(lines) {
  const out = [];
  for (const section of SUMMARY_SECTIONS) {
    const mine = lines.filter((line) => sectionOf(line) === section);
    if (!mine.length) continue;
    if (out.length) out.push('');
    out.push(`${section.title} (shown, not asserted):`, '');
    for (const g of mine) out.push(`- ${g.goal}: ${g.measured} — **${verdict(g.met)}**`);
  }
  return out;
}

/** added ÷ referenceAdded, or undefined when the reference added nothing (no multiple of nothing). */
export function multiple(added, referenceAdded) {
  return Number.isFinite(added) && referenceAdded > 0 ? added / referenceAdded : undefined;
}

/** A multiple as goal lines write it: "2.92×", "−0.99×" (the mode was faster than the reference's baseline). */
export const times = (m) => `${m < 0 ? '−' : ''}${Math.abs(m).toFixed(2)}×`;
