import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  TOKENS,
  bearer,
  connectHttp,
  linksOf,
  startSidecar,
  textsOf,
  type HttpClient,
  type Sidecar,
} from '../helpers/sidecar.js';

const SESSIONS = 20;
const CALLS = 50;
/** Calls each session keeps in flight at once. */
const PARALLEL = 10;

interface SessionRun {
  client: HttpClient;
  token: string;
  /** artifact URI → the tag whose bytes it must hold */
  artifacts: Map<string, string>;
}

describe('sidecar under load', () => {
  let sidecar: Sidecar;
  const runs: SessionRun[] = [];

  beforeAll(async () => {
    // Per-session ownership under load is what this checks, so the scope that keeps it (the default is per principal).
    sidecar = await startSidecar((config) => (config.auth.artifactScope = 'session'));
  });
  afterAll(async () => {
    await Promise.all(runs.map((r) => r.client.close()));
    await sidecar?.close();
  });

  test(`${SESSIONS} sessions × ${CALLS} calls at once: every response matches its request; every artifact is its owner's only`, async () => {
    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        const token = TOKENS[s % TOKENS.length]!.token;
        return { client: await connectHttp(sidecar.base, token), token, artifacts: new Map<string, string>() };
      }),
    );
    runs.push(...clients);
    expect(sidecar.gateway.sessionCount).toBe(SESSIONS);

    const mismatches: string[] = [];
    await Promise.all(
      runs.map(async (run, s) => {
        for (let start = 0; start < CALLS; start += PARALLEL) {
          await Promise.all(
            Array.from({ length: Math.min(PARALLEL, CALLS - start) }, async (_, k) => {
              const c = start + k;
              const tag = `s${s}-c${c}`;
              if (c % 2 === 0) {
                const result = await run.client.client.callTool({ name: 'image', arguments: { tag } });
                const links = linksOf(result);
                if (!textsOf(result).startsWith(`image ${tag}\n`) || links.length !== 1)
                  mismatches.push(`${tag}: ${textsOf(result).slice(0, 80)}`);
                else run.artifacts.set(links[0]!, tag);
              } else {
                const text = textsOf(await run.client.client.callTool({ name: 'echo', arguments: { message: tag } }));
                if (text !== tag) mismatches.push(`${tag}: got ${text}`);
              }
            }),
          );
        }
      }),
    );
    expect(mismatches).toEqual([]);

    const problems: string[] = [];
    await Promise.all(
      runs.map(async (run, s) => {
        expect(run.artifacts.size).toBe(CALLS / 2);
        // Its resource list is exactly its own artifacts.
        const listed = new Set<string>();
        let cursor: string | undefined;
        do {
          const page = await run.client.client.listResources(cursor ? { cursor } : {});
          for (const r of page.resources) if (r.uri.startsWith('artifact://')) listed.add(r.uri);
          cursor = page.nextCursor;
        } while (cursor);
        if ([...listed].sort().join() !== [...run.artifacts.keys()].sort().join())
          problems.push(`session ${s} lists ${listed.size} artifacts`);
        // Every one downloads, with its own tag inside, for its owner.
        for (const [uri, tag] of run.artifacts) {
          const response = await fetch(`${sidecar.base}/artifacts/${uri.slice('artifact://'.length)}`, {
            headers: { ...bearer(run.token), 'mcp-session-id': run.client.sessionId },
          });
          const bytes = Buffer.from(await response.arrayBuffer());
          if (response.status !== 200 || !bytes.includes(`tag\0${tag}`)) problems.push(`${uri}: ${response.status}`);
        }
        // And none of another session's, over MCP or HTTP, whatever the token.
        const other = runs[(s + 1) % SESSIONS]!;
        const [foreign] = other.artifacts.keys();
        await run.client.client.readResource({ uri: foreign! }).then(
          () => problems.push(`session ${s} read ${foreign}`),
          (error: { code?: number }) => {
            if (error.code !== ErrorCode.InvalidParams) problems.push(`session ${s}: ${String(error)}`);
          },
        );
        const response = await fetch(`${sidecar.base}/artifacts/${foreign!.slice('artifact://'.length)}`, {
          headers: { ...bearer(run.token), 'mcp-session-id': run.client.sessionId },
        });
        if (response.status !== 404) problems.push(`session ${s} downloaded ${foreign}: ${response.status}`);
        await response.arrayBuffer();
      }),
    );
    expect(problems).toEqual([]);
  }, 180_000);
});
