/**
 * Whether an EXIF block was written by a camera. Scanners and image editors may write Make, Model and a
 * resolution, but only a camera records how it exposed the shot.
 */
const EXIF_IFD_POINTER = 0x8769;
const EXPOSURE_TAGS = new Set([
  0x829a, // ExposureTime
  0x829d, // FNumber
  0x8827, // ISOSpeedRatings
  0x920a, // FocalLength
]);

/** `exif` as sharp's `metadata().exif` gives it: optionally "Exif\0\0", then a TIFF header and IFDs. */
export function hasCameraExif(exif: Buffer | undefined): boolean {
  if (!exif || exif.length < 8) return false;
  const start = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0;
  const tiff = exif.subarray(start);
  if (tiff.length < 8) return false;
  const order = tiff.subarray(0, 2).toString('latin1');
  if (order !== 'II' && order !== 'MM') return false;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));

  const tagsOf = (offset: number): Map<number, number> => {
    const tags = new Map<number, number>();
    if (offset < 8 || offset + 2 > tiff.length) return tags;
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const at = offset + 2 + i * 12;
      if (at + 12 > tiff.length) break;
      // The value field holds the value itself for a LONG, which is all we read (the Exif IFD pointer).
      tags.set(u16(at), u32(at + 8));
    }
    return tags;
  };

  const ifd0 = tagsOf(u32(4));
  if ([...ifd0.keys()].some((tag) => EXPOSURE_TAGS.has(tag))) return true;
  const exifIfd = ifd0.get(EXIF_IFD_POINTER);
  if (exifIfd === undefined) return false;
  return [...tagsOf(exifIfd).keys()].some((tag) => EXPOSURE_TAGS.has(tag));
}
