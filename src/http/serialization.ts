import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const defaultFactory = SerializerSelector();
const compiled = new Map<string, Serializer>();

/**
 * Fastify's own serializer factory (fast-json-stringify), with the compiled serializers kept per
 * process: a response serializer depends only on its schema, the shared schemas and the options,
 * and compiling one for every response schema of every route is most of what starting an app costs
 * (about 100 ms of CPU). The service builds one app, so this changes nothing for it; the test suite
 * builds hundreds in a few processes and compiles each distinct schema once (docs/decisions.md, "The
 * suite in six minutes"). The set is bounded by the schemas the code declares.
 */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  return (route) => {
    const key = `${context}\n${JSON.stringify(route.schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
