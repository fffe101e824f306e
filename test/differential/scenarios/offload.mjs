// Offloading: an image result (a PNG of 2000x50 noise, about 300 KB, wider than a model reads unscaled), a text
// block holding a large JSON document (about 300 KB) and a base64 blob (200 KB) in an embedded resource: what the
// client gets instead (summaries, artifact links, a scaled-down preview) and what stays the same around them.
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';
import { bigJson, noiseBase64, noisePng } from './data.mjs';

const png = noisePng(2000, 50).toString('base64');
const json = JSON.stringify(bigJson(300_000));

export default {
  name: 'offload',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['image', 'json', 'blob']),
      tool(
        'image',
        result(
          `{"content":[{"type":"text","text":"a picture"},{"type":"image","mimeType":"image/png","data":"${png}"}]}`,
        ),
      ),
      tool('json', result(`{"content":[{"type":"text","text":${json}}]}`)),
      tool(
        'blob',
        result(
          `{"content":[{"type":"resource","resource":{"uri":"scripted://blob.bin","mimeType":"application/octet-stream","blob":"${noiseBase64(200_000)}"}}]}`,
        ),
      ),
    ],
  },
  steps: [
    ...legacyOpening(),
    ...ask(2, 'tools/call', '{"name":"image","arguments":{}}'),
    ...ask(3, 'tools/call', '{"name":"json","arguments":{}}'),
    ...ask(4, 'tools/call', '{"name":"blob","arguments":{}}'),
  ],
};
