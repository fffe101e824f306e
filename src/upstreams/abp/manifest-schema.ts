/**
 * JSON Schema of an ABP web-app manifest (protocol 0.1): the required fields, the optional app fields and
 * the capability entries. Unknown properties are allowed: the manifest is informational and apps extend it.
 */
export const ABP_MANIFEST_SCHEMA = {
  type: 'object',
  required: ['abp', 'app', 'capabilities'],
  properties: {
    abp: { type: 'string' },
    app: {
      type: 'object',
      required: ['id', 'name', 'version'],
      properties: {
        id: { type: 'string', minLength: 1 },
        name: { type: 'string', minLength: 1 },
        version: { type: 'string', minLength: 1 },
        description: { type: 'string' },
        homepage: { type: 'string' },
        icon: { type: 'string' },
        support: { type: 'string' },
      },
    },
    capabilities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          description: { type: 'string' },
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          experimental: { type: 'boolean' },
          deprecated: { type: 'boolean' },
          available: { type: 'boolean' },
        },
      },
    },
  },
} as const;
