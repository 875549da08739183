/**
 * The document's metadata handed to {@link Destination.send} with each file.
 *
 * Only `title` is always present; every other field is absent when unknown (never an empty
 * string), so a destination can send "only the fields that have a value" by testing presence.
 *
 * @since API 1
 */
export interface BookMeta {
  /** The document's title; the export's file name is derived from it. Never empty. */
  readonly title: string;
  /** Authors, in order. Absent or empty when unknown. */
  readonly authors?: readonly string[];
  /** Language as a BCP 47 / ISO 639 code (`fr`, `en`, `la`). */
  readonly language?: string;
  /** The publisher's name. */
  readonly publisher?: string;
  /** Year of publication. */
  readonly year?: number;
  /** Number of pages of the document. */
  readonly pages?: number;
  /** Subjects or shelves. */
  readonly categories?: readonly string[];
  /** ISBN, as printed (digits and hyphens). */
  readonly isbn?: string;
  /** One paragraph about the document. */
  readonly description?: string;
}

/**
 * Check and tidy a BookMeta that crossed a process boundary: trims text, drops empty fields,
 * keeps only the known ones. Throws a `TypeError` when the title is missing.
 *
 * @since API 1
 */
export function normalizeBookMeta(value: unknown): BookMeta {
  if (typeof value !== 'object' || value === null) throw new TypeError('book metadata must be an object');
  const v = value as Record<string, unknown>;
  const text = (x: unknown): string | undefined => (typeof x === 'string' && x.trim() !== '' ? x.trim() : undefined);
  const list = (x: unknown): string[] | undefined => {
    const items = Array.isArray(x) ? x.map(text).filter((s): s is string => s !== undefined) : [];
    return items.length > 0 ? items : undefined;
  };
  const whole = (x: unknown): number | undefined => (typeof x === 'number' && Number.isInteger(x) && x > 0 ? x : undefined);
  const title = text(v.title);
  if (title === undefined) throw new TypeError('book metadata needs a title');
  const meta: Record<string, unknown> = {
    title,
    authors: list(v.authors),
    language: text(v.language),
    publisher: text(v.publisher),
    year: whole(v.year),
    pages: whole(v.pages),
    categories: list(v.categories),
    isbn: text(v.isbn),
    description: text(v.description),
  };
  for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
  return Object.freeze(meta) as unknown as BookMeta;
}
