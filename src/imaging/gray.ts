import sharp, { type Sharp } from 'sharp';

/** An 8-bit, one-channel image, row-major. 0 is black, 255 is white. */
export interface GrayImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** An axis-aligned rectangle in pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function createGray(width: number, height: number, fill = 255): GrayImage {
  return { width, height, data: new Uint8Array(width * height).fill(fill) };
}

/** Decode any image sharp reads (EXIF orientation applied) to one grey channel. */
export async function decodeGray(input: Buffer | string, options: { page?: number } = {}): Promise<GrayImage> {
  const { data, info } = await sharp(input, { page: options.page ?? 0, limitInputPixels: 268_402_689 })
    .rotate()
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected 1 channel, got ${info.channels}`);
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** A sharp pipeline reading this grey image. */
export function sharpFromGray(image: GrayImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } });
}

/** Copy the part of `image` inside `box` (clamped to the image). */
export function cropGray(image: GrayImage, box: Box): GrayImage {
  const x0 = Math.max(0, Math.round(box.x));
  const y0 = Math.max(0, Math.round(box.y));
  const x1 = Math.min(image.width, Math.round(box.x + box.width));
  const y1 = Math.min(image.height, Math.round(box.y + box.height));
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const src = (y0 + y) * image.width + x0;
    out.set(image.data.subarray(src, src + Math.min(w, image.width - x0)), y * w);
  }
  return { width: w, height: h, data: out };
}
