/**
 * Config file → validated `Config`. Every problem found is reported at once, each at the
 * file:line:column of the node concerned, in a `ConfigError`.
 *
 * Pipeline: YAML parse (syntax errors stop here: what follows would be guesswork) → plain data with
 * positions, `${VAR}` substituted in string values → lenient scalar coercion → JSON Schema
 * (config/schema.json) → checks across keys → normalization.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import { indentationProblem } from './indentation.js';
import { translateAjvError, type RawProblem } from './ajv-messages.js';
import { checkCommands } from './commands.js';
import { checkAbpEnvironment, checkConfig } from './checks.js';
import { coerceScalars } from './coerce.js';
import { expandEnv } from './env.js';
import { normalizeConfig, type ConfigDoc } from './normalize.js';
import { ProblemList } from './problems.js';
import { configSchema, configValidator } from './schema.js';
import { ConfigError, UnreadableConfigError, type Config, type ConfigProblem } from './types.js';
import { yamlToData } from './yaml-tree.js';

export interface ParseOptions {
  /** Accept a config without servers (e.g. for a command that only checks the file). */
  allowNoServers?: boolean;
  /** Servers the command line adds (`--abp`), which rules may name. */
  extraServers?: readonly string[];
  /** Check that each local server's command can be started (`validate`). */
  checkCommands?: boolean;
}

export function parseConfig(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  options: ParseOptions = {},
): Config {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) throw new ConfigError(syntaxProblems(text, file, doc.errors, lineCounter));

  const envProblems: Array<{ pointer: string; message: string }> = [];
  const tree = yamlToData(doc, lineCounter, (value, pointer) => {
    const expansion = expandEnv(value, env);
    for (const message of expansion.problems) envProblems.push({ pointer, message });
    return expansion.value;
  });
  const problems = new ProblemList(file, tree.nodes);
  for (const { pointer, message } of envProblems) problems.addEnvProblem(pointer, message);
  for (const { pointer, message } of tree.problems) problems.add({ pointer, anchor: 'value', message });

  // An empty file (or one with only comments) is an empty mapping, reported as "no servers".
  const data = coerceScalars(tree.data ?? {}, configSchema(), '', tree.nodes);
  const validate = configValidator();
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      const problem = translateAjvError(error, data);
      if (problem) problems.add(problem);
    }
  }
  const report = (problem: RawProblem) => problems.add(problem);
  checkConfig(
    data,
    { allowNoServers: options.allowNoServers ?? false, extraServers: options.extraServers ?? [] },
    report,
  );
  if (options.checkCommands) checkCommands(data, env, report);
  checkAbpEnvironment(data, env, (problem) => problems.add(problem));

  if (problems.size > 0) throw new ConfigError(problems.sorted());
  return normalizeConfig(data as ConfigDoc, file, tree.nodes, env);
}

export async function loadConfigFile(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  options: ParseOptions = {},
): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // Not `instanceof Error`: errors from node:fs may come from another realm (jest's VM modules).
    const message = (error as { message?: unknown } | null)?.message;
    const reason = typeof message === 'string' ? message : String(error);
    throw new UnreadableConfigError(path, unreadableReason((error as { code?: unknown } | null)?.code, reason));
  }
  const config = parseConfig(text, path, env, options);
  config.file = resolve(path);
  return config;
}

/**
 * What the YAML parser could not read, each mistake once, where it is to be fixed: an indentation mistake
 * in plain words (indentation.ts), else the parser's own words, one per line (it often says three things
 * about one mistake).
 */
function syntaxProblems(
  text: string,
  file: string,
  errors: readonly YAMLError[],
  lineCounter: LineCounter,
): ConfigProblem[] {
  const syntax = new ProblemList(file);
  const positions = errors.map((error) => ({ error, at: lineCounter.linePos(error.pos[0]) }));
  const firstLine = Math.min(...positions.map(({ at }) => at.line));
  const indentation = indentationProblem(text, firstLine);
  if (indentation) {
    syntax.addAt(
      { line: indentation.line, column: indentation.column },
      '',
      `YAML indentation: ${indentation.message}`,
    );
    return syntax.sorted();
  }
  const lines = new Set<number>();
  for (const { error, at } of positions) {
    if (lines.has(at.line)) continue;
    lines.add(at.line);
    syntax.addAt({ line: at.line, column: at.col }, '', `YAML syntax error: ${firstLineOf(error.message)}`);
  }
  return syntax.sorted();
}

function firstLineOf(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** node:fs's error codes in words, the code kept for a search. */
function unreadableReason(code: unknown, message: string): string {
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
  };
  return typeof code === 'string' && words[code] ? `${words[code]} (${code})` : message;
}
