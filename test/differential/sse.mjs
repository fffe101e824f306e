// A minimal incremental parser of text/event-stream bodies (the WHATWG rules the harness needs: `event`, `id`,
// `data` lines, events ended by a blank line, comments ignored), so the raw client sees each event as it arrives.

/** Returns a function to feed chunks of the stream's text; `onEvent({ event, id, data })` gets each whole event. */
export function sseParser(onEvent) {
  let pending = '';
  let event = { data: [] };
  return (chunk) => {
    pending += chunk;
    for (let end = pending.search(/\r\n|\n|\r/); end >= 0; end = pending.search(/\r\n|\n|\r/)) {
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (pending[end] === '\r' && end === pending.length - 1) break;
      const line = pending.slice(0, end);
      pending = pending.slice(end + (pending.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (event.data.length > 0 || event.event !== undefined) {
          onEvent({ event: event.event, id: event.id, data: event.data.join('\n') });
        }
        event = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') event.data.push(value);
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  };
}
