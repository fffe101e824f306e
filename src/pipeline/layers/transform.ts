import { pathToFileURL } from 'node:url';
import type { Layer, LayerContext, Result } from '../types.js';

export interface TransformContext {
  server: string;
  tool: string;
  args?: Record<string, unknown>;
  /** Stores bytes or text as an artifact and returns its record and summary. */
  save: LayerContext['save'];
  log: LayerContext['log'];
}

export type Transformer = (result: Result, context: TransformContext) => Result | Promise<Result>;

const modules = new Map<string, Promise<Transformer>>();

/**
 * Layer 1: a rule's own JavaScript module rewrites the result first. A transformer that throws,
 * or returns something that is not a result, is logged and skipped: the result falls through to
 * the other layers unchanged.
 */
export const transformLayer: Layer = {
  name: 'transform',
  authored: true,
  applies: (_result, settings) => settings.transform !== undefined,
  run: transform,
};

async function transform(result: Result, run: LayerContext): Promise<Result> {
  const file = run.settings.transform;
  if (!file) return result;
  try {
    const transform = await load(file);
    const next = await transform(structuredClone(result), {
      server: run.call.server,
      tool: run.call.tool,
      args: run.call.args,
      save: (payload) => run.save(payload),
      log: run.log,
    });
    if (!isResult(next)) throw new Error('it did not return a tool result (an object with a content array)');
    return next;
  } catch (error) {
    const err = error instanceof Error ? error.message : String(error);
    run.log.warn({ transform: file, err }, 'transform failed; using the result as it was');
    return result;
  }
}

function load(file: string): Promise<Transformer> {
  let loading = modules.get(file);
  if (!loading) {
    loading = import(pathToFileURL(file).href).then((module: { default?: unknown; transform?: unknown }) => {
      const fn = module.default ?? module.transform;
      if (typeof fn !== 'function') throw new Error(`${file} exports no function (default or "transform")`);
      return fn as Transformer;
    });
    loading.catch(() => modules.delete(file));
    modules.set(file, loading);
  }
  return loading;
}

function isResult(value: unknown): value is Result {
  return typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content);
}
