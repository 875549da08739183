import sharp, { type Sharp } from 'sharp';
import { readImage } from '../imaging/index.js';
import type { FrameImage } from './types.js';

/** A sharp pipeline reading a loaded frame: its raw pixels, or its encoded image within the pixel limit. */
export function frameSharp(frame: FrameImage): Sharp {
  if (frame.raw) return sharp(frame.data, { raw: frame.raw });
  return readImage(frame.data, { page: frame.page ?? 0 });
}
