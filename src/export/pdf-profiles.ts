/** How page images go into the PDF. `auto`: G4 for bitonal pages, JPEG for the others. */
export type PdfProfile = 'auto' | 'g4' | 'jpeg';

/** Kept apart from the writer so parsing a format list loads neither pdf-lib nor sharp. */
export const PDF_PROFILES: readonly PdfProfile[] = ['auto', 'g4', 'jpeg'];
