// #34 finding 6, between the eras: a 2025 server's question during a 2026-07-28 client's call reaches the client inside
// the call's input_required result, and the client's answer reaches the server in an answer the proxy makes. Both
// are messages of the proxy's own, so a string of 256 KiB or more in them, kept aside as bytes by a stdio reader,
// went on as the proxy's marker. The client gets the server's text, and the server the client's, whole.
import { expect } from '@jest/globals';
import { envelope, rawText, textOf } from './harness/client.js';
import { eachClient } from './harness/each-client.js';
import { HOSTILE } from './harness/proxy.js';

const QUESTION = 'Q'.repeat(300_000);
const ANSWER = 'A'.repeat(300_000);
/** A client that can be asked (the envelope's capabilities). */
const CAN_ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };

eachClient(
  "a server's long question to a 2026-07-28 client, and the client's long answer",
  async (client) => {
    const call = { name: `${HOSTILE}__act`, arguments: {} };
    const asked = await client.ask('tools/call', { ...call, _meta: CAN_ELICIT }, { timeoutMs: 20_000 });
    expect(rawText(asked)).not.toMatch(/mcp-offload-blob|\\u0000/);
    const { inputRequests, requestState } = asked.result as {
      inputRequests: Record<string, { method: string; params: { message: string } }>;
      requestState: string;
    };
    const [key, question] = Object.entries(inputRequests)[0]!;
    expect(question.params.message).toBe(QUESTION);
    const inputResponses = { [key]: { action: 'accept', content: { answer: ANSWER } } };
    // Written by hand, its envelope last (the one JSON.parse keeps): the stdio reader keeps the long answer aside as
    // bytes, as it would any client's.
    const members = `"name":"${call.name}","arguments":{},"requestState":${JSON.stringify(requestState)},"inputResponses":${JSON.stringify(inputResponses)}`;
    const done = await client.askRaw(
      'tools/call',
      `"_meta":${JSON.stringify({ ...envelope(), ...CAN_ELICIT })},${members}`,
      {
        timeoutMs: 20_000,
      },
    );
    expect(textOf(done)).toBe(`the server got an answer of ${ANSWER.length} characters, ${ANSWER.slice(0, 3)}…`);
  },
  {
    clients: [{ transport: 'stdio', era: 'modern' }],
    upstream: {
      async call(_params, connection) {
        const reply = await connection.request(
          'elicitation/create',
          { message: QUESTION, requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } } },
          20_000,
        );
        const answer = String((reply.result as { content?: { answer?: unknown } } | undefined)?.content?.answer);
        return {
          content: [
            { type: 'text', text: `the server got an answer of ${answer.length} characters, ${answer.slice(0, 3)}…` },
          ],
        };
      },
    },
  },
);
