import { describe, expect, it } from 'vitest';
import { createGray } from '../../src/imaging/index.js';
import { pageStep, PRESETS, registerStep, type PageState } from '../../src/pipeline/index.js';

describe('pipeline steps', () => {
  it('are what every preset lists, by name, in the order the book preset runs them', () => {
    expect(PRESETS.book.steps).toEqual(['deskew', 'dewarp', 'resample', 'binarize', 'crop']);
    for (const preset of Object.values(PRESETS)) {
      for (const name of preset.steps) expect(pageStep(name).name).toBe(name);
    }
  });

  it('take a step registered later the same way, and refuse a second step of the same name', async () => {
    registerStep({
      name: 'invert-test',
      async run(page) {
        page.image = { ...page.image, data: page.image.data.map((v) => 255 - v) };
      },
    });
    const page: PageState = {
      image: createGray(2, 1, 10),
      kind: 'gray',
      dpi: 300,
      targetDpi: 300,
      marginMm: 3,
      decisions: { preset: 'book' } as PageState['decisions'],
    };
    await pageStep('invert-test').run(page);
    expect([...page.image.data]).toEqual([245, 245]);
    expect(() => registerStep({ name: 'deskew', run: async () => {} })).toThrow('already registered');
    expect(() => pageStep('sharpen-twice')).toThrow('no pipeline step is called "sharpen-twice"');
  });
});
