// Preloaded with `--import` (in NODE_OPTIONS): every module this process resolves, its URL a line of
// `$MODULE_LOG.<pid>`, and at exit the built-ins Node loaded for it (`builtin:` and a line of process.moduleLoadList:
// some, as undici behind node:http's ESM facade, are loaded inside Node and never resolved). Tests read it to know
// which packages a process loaded, and when.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = `${process.env.MODULE_LOG}.${process.pid}`;
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(file, `${resolved.url}\n`);
    return resolved;
  },
});
process.on('exit', () => appendFileSync(file, process.moduleLoadList.map((name) => `builtin:${name}\n`).join('')));
