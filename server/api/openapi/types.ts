/** OpenAPI is post-processed as plain JSON: one loose type keeps the edits readable. */
export type JsonObject = { [key: string]: any };
