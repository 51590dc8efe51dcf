// One naming convention for the agent tools: arguments and result fields are camelCase (as
// memory_store's payload always was). The snake_case names of earlier releases still work for one
// release (docs/agents.md, CHANGELOG): an argument `from_line` is read as `fromLine`, and every
// snake_case result field also comes under its camelCase name. Removed in the release after.

/** `from_line` -> `fromLine`. */
export function camelName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Arguments with earlier releases' snake_case names renamed to the tool's camelCase ones. A name the
 * tool does not know either way is left as it is (the schema then names it); when both spellings
 * are given, the camelCase one wins.
 */
export function withArgumentAliases(
  shape: Record<string, unknown>,
  args: Record<string, unknown>,
): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(args)) {
    if (key in shape || !key.includes('_')) continue;
    const camel = camelName(key);
    if (!(camel in shape)) continue;
    out ??= { ...args };
    if (!(camel in out)) out[camel] = out[key];
    delete out[key];
  }
  return out ?? args;
}

/**
 * A result with the camelCase name beside every snake_case field (`vector_enabled` ->
 * `vectorEnabled`, `topic_id` -> `topicId`), at any depth, so agents written against either
 * spelling read it. Field order is kept, each camelCase twin right after its old name.
 */
export function withResultNames<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withResultNames(v)) as T;
  if (!value || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(source)) {
    const named = withResultNames(v);
    out[key] = named;
    const camel = camelName(key);
    if (camel !== key && !(camel in source)) out[camel] = named;
  }
  return out as T;
}
