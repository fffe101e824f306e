// The goal lines of the small-calls group (bench/scenarios/small-calls.mjs), from its rows: the relay-core issue's
// (#32) first, then the earlier issues' (the performance issue, #13). Shown with their figures, never asserted.
//
// A row is one mode in one phase: { id, phase, mode, name (the mode's label without "steady state"), median,
// addedMedian (its median minus its baseline's), baselineMedian, addedPct, cpuPerCall }.
import * as fmt from './format.mjs';
import { RELAY_CORE, multiple, times } from './goals.mjs';
import { PHASES } from './small-call-modes.mjs';

/** #32, stdio: mcp-offload's added median at most this multiple of a bare byte relay's. */
const STDIO_MULTIPLE = 2;
/** #32, HTTP: mcp-offload --http's added median at most this multiple of the minimal Node HTTP proxy's. */
const HTTP_MULTIPLE = 1.2;
/** The performance issue's: the added median under this share of the direct call's median. */
const GOAL_PCT = 15;

const find = (rows, id, phase) => rows.find((r) => r.id === id && r.phase === phase);

/**
 * A goal line that compares mode `id` with mode `floorId` phase by phase, as `added ÷ the floor's added`, at most
 * `limit`. Only sequential calls are judged (one call's latency): with 16 in flight a byte relay copies a burst of
 * messages in one read and one write and adds next to nothing (its added median lands between about −0.05 and +0.1 ms
 * run to run), so a multiple of it says little; it is shown, not judged. `contextIds`: other floors shown beside it
 * with their own added median and multiple of the floor (a relay that parses every message, a TCP relay...).
 */
function floorLine(rows, { issue, goal, id, floorId, limit, contextIds = [] }) {
  const parts = [];
  let met;
  for (const phase of PHASES) {
    const r = find(rows, id, phase);
    const floor = find(rows, floorId, phase);
    if (r?.addedMedian === undefined || floor?.addedMedian === undefined) continue;
    const m = multiple(r.addedMedian, floor.addedMedian);
    const context = contextIds
      .map((cid) => find(rows, cid, phase))
      .filter((c) => c?.addedMedian !== undefined)
      .map((c) => {
        const cm = multiple(c.addedMedian, floor.addedMedian);
        return `${c.name}: ${fmt.signedLatency(c.addedMedian)}${cm !== undefined ? `, ${times(cm)}` : ''}`;
      });
    parts.push(
      `${phase}: ${fmt.signedLatency(r.addedMedian)} against ${fmt.signedLatency(floor.addedMedian)}` +
        (m !== undefined ? ` = ${times(m)}` : ' (no multiple: the floor added nothing, below the noise)') +
        (context.length ? ` (${context.join('; ')})` : '') +
        (phase === 'concurrent' ? ', not judged' : ''),
    );
    // A floor that added nothing leaves nothing to take a multiple of: the run's noise exceeded it, so not judged.
    if (phase === 'sequential' && m !== undefined) met = m <= limit;
  }
  return parts.length ? [{ issue, goal, measured: parts.join('; '), met }] : [];
}

/** The relay-core issue's goals (#32): stdio against the bare byte relay, HTTP against the minimal HTTP proxy. */
function relayCoreGoals(rows) {
  const stdio = (label, id, floorId, contextIds) =>
    floorLine(rows, {
      issue: RELAY_CORE,
      goal: `Small calls, stdio, ${label}: mcp-offload's added median ≤ ${STDIO_MULTIPLE}× a bare byte relay's`,
      id,
      floorId,
      limit: STDIO_MULTIPLE,
      contextIds,
    });
  const http = (label, id, floorId, contextIds) =>
    floorLine(rows, {
      issue: RELAY_CORE,
      goal: `Small calls, HTTP (--http --url before a Streamable HTTP server), ${label}: mcp-offload's added median ≤ ${HTTP_MULTIPLE}× the minimal Node HTTP proxy's`,
      id,
      floorId,
      limit: HTTP_MULTIPLE,
      contextIds,
    });
  return [
    ...stdio('a 2025 client, fresh process', 'stdio-mcp-offload', 'stdio-relay', ['stdio-json-relay']),
    ...stdio('a 2025 client, steady state', 'stdio-mcp-offload-steady', 'stdio-relay-steady', [
      'stdio-json-relay-steady',
    ]),
    ...stdio(
      'a 2026-07-28 client (SDK v2) before a 2026-07-28 server, fresh process',
      'v2m-stdio-mcp-offload',
      'v2m-stdio-relay',
      ['v2m-stdio-json-relay'],
    ),
    ...stdio(
      'a 2026-07-28 client (SDK v2) before a 2026-07-28 server, steady state',
      'v2m-stdio-mcp-offload-steady',
      'v2m-stdio-relay-steady',
      ['v2m-stdio-json-relay-steady'],
    ),
    // Bridged to server-everything, which speaks only 2025: the relay carries the same client in its 2025 mode.
    ...stdio(
      'a 2026-07-28 client (SDK v2) bridged to a 2025 server, fresh process (the relay: the same client in its 2025 mode)',
      'v2-stdio-mcp-offload-modern',
      'v2-stdio-relay',
      ['v2-stdio-mcp-offload'],
    ),
    ...http('a 2025 client, fresh process', 'url-mcp-offload', 'url-http-relay', ['url-relay']),
    ...http('a 2025 client, steady state', 'url-mcp-offload-steady', 'url-http-relay-steady', ['url-relay-steady']),
    ...http(
      'a 2026-07-28 client (SDK v2) before a 2026-07-28 server, fresh process',
      'v2m-url-mcp-offload',
      'v2m-url-http-relay',
      ['v2m-url-relay'],
    ),
  ];
}

/** The performance issue's goals over the direct call and against the peer, and #13's era comparison. */
function earlierGoals(rows) {
  const lines = [];
  const added = (r) =>
    `${fmt.signedLatency(r.addedMedian)} on ${fmt.latency(r.baselineMedian)} = ${fmt.percent(r.addedPct, true)}`;
  const pctLine = (id, label) => {
    const rs = PHASES.map((p) => find(rows, id, p)).filter((r) => r?.addedPct !== undefined);
    if (!rs.length) return;
    lines.push({
      goal: `Small calls, ${label}: added median latency < ${GOAL_PCT} % of the direct call's median`,
      measured: rs.map((r) => `${r.phase}: ${added(r)}`).join('; '),
      met: rs.every((r) => r.addedPct < GOAL_PCT),
    });
  };
  pctLine('stdio-mcp-offload', 'stdio (mcp-offload vs direct)');
  const peer = PHASES.map((p) => [find(rows, 'http-mcp-offload', p), find(rows, 'http-mcp-proxy', p)]).filter(
    ([a, b]) => a && b,
  );
  if (peer.length) {
    lines.push({
      goal: "Small calls, HTTP: mcp-offload's added median latency below mcp-proxy's",
      measured: peer
        .map(([a, b]) =>
          a.addedMedian !== undefined
            ? `${a.phase}: ${fmt.signedLatency(a.addedMedian)} vs ${fmt.signedLatency(b.addedMedian)} (medians ${fmt.latency(a.median)} vs ${fmt.latency(b.median)})`
            : `${a.phase}: medians ${fmt.latency(a.median)} vs ${fmt.latency(b.median)}`,
        )
        .join('; '),
      met: peer.every(([a, b]) => a.median < b.median), // same baseline: comparing added latency is comparing medians
    });
  }
  pctLine('http-mcp-offload', 'HTTP (mcp-offload --http vs server-everything streamableHttp)');
  lines.push(...eraLine(rows, 'stdio', 'v2-stdio-mcp-offload-modern', 'v2-stdio-mcp-offload'));
  lines.push(...eraLine(rows, 'HTTP', 'v2-http-mcp-offload-modern', 'v2-http-mcp-offload'));
  return lines;
}

/**
 * Issue #13's goal for 2026-07-28 traffic to a 2025 server, where no byte relay carries the same protocol: a
 * 2026-07-28 client's call costs no more than the same client's call in its 2025 mode (sequential calls judged).
 */
function eraLine(rows, label, modernId, legacyId) {
  const parts = [];
  let met;
  for (const phase of PHASES) {
    const modern = find(rows, modernId, phase);
    const legacy = find(rows, legacyId, phase);
    if (modern?.addedMedian === undefined || legacy?.addedMedian === undefined) continue;
    parts.push(
      `${phase}: ${fmt.signedLatency(modern.addedMedian)} against ${fmt.signedLatency(legacy.addedMedian)} in the 2025 mode` +
        ` (proxy CPU per call ${fmt.latency(modern.cpuPerCall)} against ${fmt.latency(legacy.cpuPerCall)})` +
        (phase === 'concurrent' ? ', not judged' : ''),
    );
    if (phase === 'sequential') met = modern.addedMedian <= legacy.addedMedian;
  }
  const goal = `Small calls, ${label}, a 2026-07-28 client (SDK v2): mcp-offload adds no more than for the same client in its 2025 mode (issue #13)`;
  return parts.length ? [{ goal, measured: parts.join('; '), met }] : [];
}

/** Every goal line of the group, #32's first. */
export const smallCallGoals = (rows) => [...relayCoreGoals(rows), ...earlierGoals(rows)];
