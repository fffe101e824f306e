// #34 finding 5: methods named like Object.prototype's members ("toString", "__proto__", "constructor") were looked
// up on a plain object: answered "[object Undefined]", "handler is not a function", or never (an HTTP stream open for
// good). Every one must be answered like any unknown method.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';

/** Every name Object.prototype has, and the names a lookup on an object or a promise also trips on. */
const NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'then', 'prototype', 'tools/__proto__', '__proto__/x'];

eachClient('every Object.prototype name as a method is answered', async (client) => {
  for (const method of NAMES) {
    const answer = await client.ask(method, {});
    // Answered with an error (no server has such a method); never a result made from what the name looked up.
    expect({ method, answer }).toMatchObject({ method, answer: { error: { code: expect.any(Number) } } });
    expect({ method, message: (answer.error as { message: string }).message }).not.toMatchObject({
      message: expect.stringMatching(/\[object |is not a function|undefined/),
    });
  }
});
