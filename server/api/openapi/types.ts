/** OpenAPI is post-processed as plain JSON: one loose type keeps the edits readable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked as untyped JSON
export type JsonObject = { [key: string]: any };
