/**
 * An app's elicitation (`elicitation/input|preference|confirm|select`) as an MCP form elicitation,
 * and the user's answer back in the app's terms. MCP forms hold flat primitive fields only, so each
 * request becomes one or a few such fields and the answer is mapped back to `{value}`,
 * `{confirmed}` or `{selected}`. When the client cannot ask anyone, `fallback()` answers as the
 * ABP bridge did: confirm non-destructive actions, take schema defaults, pick the first option.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/server';
import type { AbpElicitation, AbpElicitationAnswer } from './types.js';
import { isPlainObject } from '../../config/pointer.js';

type Json = Record<string, unknown>;
type FormSchema = ElicitRequestFormParams['requestedSchema'];
type Field = FormSchema['properties'][string];

export interface ElicitationPlan {
  request: ElicitRequestFormParams;
  /** The app's answer for what the user submitted. */
  accepted(content: Json): AbpElicitationAnswer;
  /** The app's answer when the user says no. */
  declined(): AbpElicitationAnswer;
  /** The app's answer when nobody can be asked (`elicitation: defaults`). */
  fallback(): AbpElicitationAnswer;
}

export const CANCELLED: AbpElicitationAnswer = { success: false, cancelled: true };

export function unsupportedElicitation(method: string): AbpElicitationAnswer {
  return {
    success: false,
    error: { code: 'NOT_SUPPORTED', message: `elicitation method ${method} is not supported`, retryable: false },
  };
}

/** Undefined for a method the protocol does not define. */
export function planElicitation(elicitation: AbpElicitation): ElicitationPlan | undefined {
  const params = (elicitation.params ?? {}) as Json;
  switch (elicitation.method) {
    case 'elicitation/confirm':
      return confirmPlan(params);
    case 'elicitation/select':
      return selectPlan(params, 'selected');
    case 'elicitation/preference':
      return Array.isArray(params.options) ? selectPlan(params, 'value') : inputPlan(params);
    case 'elicitation/input':
      return inputPlan(params);
    default:
      return undefined;
  }
}

/** The app's answer for an MCP elicitation result. */
export function answerFrom(plan: ElicitationPlan, result: ElicitResult): AbpElicitationAnswer {
  if (result.action === 'accept') return plan.accepted((result.content ?? {}) as Json);
  if (result.action === 'decline') return plan.declined();
  return CANCELLED;
}

const DECLINED: AbpElicitationAnswer = {
  success: false,
  error: { code: 'USER_DECLINED', message: 'the user declined to answer', retryable: false },
};

function confirmPlan(params: Json): ElicitationPlan {
  const message = text(params.message) ?? text(params.prompt) ?? 'Confirm?';
  const destructive = params.destructive === true;
  return {
    request: {
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          confirmed: {
            type: 'boolean',
            title: destructive ? 'Confirm (destructive)' : 'Confirm',
            default: !destructive,
          },
        },
        required: ['confirmed'],
      },
    },
    accepted: (content) => ok({ confirmed: content.confirmed === true }),
    declined: () => ok({ confirmed: false }),
    fallback: () => ok({ confirmed: !destructive }),
  };
}

function selectPlan(params: Json, answerKey: 'selected' | 'value'): ElicitationPlan {
  const options = (Array.isArray(params.options) ? params.options : []).map((option: unknown) =>
    isPlainObject(option) && 'value' in option
      ? { value: option.value, label: text(option.label) ?? String(option.value) }
      : { value: option, label: String(option) },
  );
  const keys = options.map((o) => (typeof o.value === 'string' ? o.value : JSON.stringify(o.value)));
  const unique = new Set(keys).size === keys.length;
  const keyOf = (i: number) => (unique ? keys[i]! : String(i));
  const field: Field = {
    type: 'string',
    title: 'Choice',
    oneOf: options.map((o, i) => ({ const: keyOf(i), title: o.label })),
  };
  const index = options.findIndex((o) => o.value === params.default);
  if (index >= 0) field.default = keyOf(index);
  return {
    request: {
      message: text(params.prompt) ?? text(params.message) ?? 'Choose one',
      requestedSchema: { type: 'object', properties: { choice: field }, required: ['choice'] },
    },
    accepted: (content) => {
      const i = options.findIndex((_, j) => keyOf(j) === content.choice);
      return i >= 0 ? ok({ [answerKey]: options[i]!.value }) : DECLINED;
    },
    declined: () => DECLINED,
    fallback: () => (options.length ? ok({ [answerKey]: options[Math.max(index, 0)]!.value }) : CANCELLED),
  };
}

/** A primitive schema is one field `value`; an object of primitives is the form itself; anything else is free text. */
function inputPlan(params: Json): ElicitationPlan {
  const message = text(params.prompt) ?? text(params.message) ?? 'Input requested';
  const schema = isPlainObject(params.schema) ? params.schema : {};
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  if (schema.type === 'object' && properties) {
    const fields = Object.fromEntries(
      Object.entries(properties).map(([key, s]) => [key, primitiveField(isPlainObject(s) ? s : {}, key)]),
    );
    const required = Array.isArray(schema.required)
      ? schema.required.filter((k): k is string => typeof k === 'string' && k in fields)
      : [];
    return {
      request: {
        message,
        requestedSchema: { type: 'object', properties: fields, ...(required.length ? { required } : {}) },
      },
      accepted: (content) => ok({ value: content }),
      declined: () => DECLINED,
      fallback: () =>
        ok({
          value: Object.fromEntries(
            Object.entries(properties).map(([key, s]) => [key, defaultOf(isPlainObject(s) ? s : {})]),
          ),
        }),
    };
  }
  const field = primitiveField({ title: 'Value', ...schema }, 'value');
  return {
    request: { message, requestedSchema: { type: 'object', properties: { value: field }, required: ['value'] } },
    accepted: (content) => ok({ value: fromField(schema, content.value) }),
    declined: () => DECLINED,
    fallback: () => ok({ value: defaultOf(schema) }),
  };
}

/** The JSON Schema narrowed to what an MCP form field may say. */
function primitiveField(schema: Json, name: string): Field {
  const common = {
    title: text(schema.title) ?? name,
    ...(text(schema.description) ? { description: text(schema.description) } : {}),
  };
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    return {
      type: 'string',
      ...common,
      enum: values,
      ...(typeof schema.default === 'string' ? { default: schema.default } : {}),
    };
  }
  if (schema.type === 'boolean')
    return { type: 'boolean', ...common, ...(typeof schema.default === 'boolean' ? { default: schema.default } : {}) };
  if (schema.type === 'number' || schema.type === 'integer') {
    return {
      type: schema.type,
      ...common,
      ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
      ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
      ...(typeof schema.default === 'number' ? { default: schema.default } : {}),
    };
  }
  const format = ['email', 'uri', 'date', 'date-time'].includes(String(schema.format))
    ? { format: schema.format as 'email' }
    : {};
  return {
    type: 'string',
    ...common,
    ...format,
    ...(typeof schema.minLength === 'number' ? { minLength: schema.minLength } : {}),
    ...(typeof schema.maxLength === 'number' ? { maxLength: schema.maxLength } : {}),
    ...(typeof schema.default === 'string' ? { default: schema.default } : {}),
  };
}

/** A non-string enum value was offered as its JSON text; give the app the value itself back. */
function fromField(schema: Json, value: unknown): unknown {
  if (!Array.isArray(schema.enum) || typeof value !== 'string') return value;
  return schema.enum.find((v) => (typeof v === 'string' ? v : JSON.stringify(v)) === value) ?? value;
}

/** The schema's default, else an empty value of its type. */
function defaultOf(schema: Json): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (schema.type) {
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return 0;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}

function ok(data: Json): AbpElicitationAnswer {
  return { success: true, data };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
