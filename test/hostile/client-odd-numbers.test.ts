// #34 finding 6: a tool name that was a 30-digit number came back as "Tool mcp-offload:number:<nonce>:… not found",
// and with the nonce an upstream's strings reached the client as numbers ("<marker>1e999" became null). Numbers a
// double cannot hold are now kept as their text (JSON.rawJSON), and no marker of the proxy's may reach a client:
// names, arguments and results keep every digit and every string, in both directions.
import { expect } from '@jest/globals';
import { rawText, type ProbeClient } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const THIRTY_DIGITS = '123456789012345678901234567890';

/** Numbers and number-like strings a tool's name or arguments may be, as JSON text. */
const ODD = [
  THIRTY_DIGITS,
  `-${THIRTY_DIGITS}`,
  JSON.stringify(THIRTY_DIGITS),
  '1e999',
  '-1e999',
  '"1e999"',
  '-0',
  '1.0000000000000000000001',
  '9007199254740993',
  '0.1e-400',
  '{}',
  '[]',
  'null',
  'true',
];

/** What must never reach a client: a marker of the proxy's, or the NUL its markers start with. */
function expectNoMarker(answer: string): void {
  expect(answer).not.toMatch(/mcp-offload:number|mcp-offload-blob|\\u0000/);
}

/** What the upstream's `act` answers: every odd number and string, written by hand (JSON.stringify cannot). */
const RESULT_MEMBERS = [
  `"n":${THIRTY_DIGITS}`,
  '"inf":1e999',
  '"tiny":0.1e-400',
  '"neg0":-0',
  '"s":"1e999"',
  '"m":"mcp-offload:number:1e999"',
  '"nul":"\\u0000mcp-offload-blob-000000000000:0"',
];

async function probe(client: ProbeClient): Promise<void> {
  for (const name of ODD) {
    const answer = rawText(await client.askRaw('tools/call', `"name":${name},"arguments":{}`));
    expectNoMarker(answer);
    expect(answer).toContain('"error"');
  }
  // A real tool with odd arguments: the upstream gets them digit for digit, and its odd result comes back the same
  // (its strings that look like the proxy's markers of old stay strings).
  const args = `{"n":${THIRTY_DIGITS},"x":1e999,"s":"1e999","z":-0,"name":${THIRTY_DIGITS}}`;
  const answer = rawText(await client.askRaw('tools/call', `"name":"${HOSTILE}__act","arguments":${args}`));
  const echoed = JSON.parse(answer) as { result: { content: Array<{ text: string }> } };
  expect(echoed.result.content[0]!.text).toContain(`"arguments":${args}`);
  for (const member of RESULT_MEMBERS) expect(answer).toContain(member);
}

eachClient('odd numbers and number-like strings in names, arguments and results', probe, {
  upstream: {
    async call(_params, connection, id) {
      // The line the proxy sent, as text (JSON.parse would round the numbers), and a result written by hand.
      const line = connection.lines.at(-1)!;
      const text = JSON.stringify(line);
      const structured = `{${RESULT_MEMBERS.join(',')}}`;
      await connection.write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${text}}],"structuredContent":${structured}}}\n`,
      );
      return undefined;
    },
  },
});
