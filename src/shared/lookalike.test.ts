import { describe, expect, it } from 'vitest';
import { lookalikeSkeleton } from './lookalike.js';

const SERVICE = lookalikeSkeleton('Partner Collab');
const OFFICIAL = lookalikeSkeleton('official');

describe('lookalikeSkeleton', () => {
  it.each([
    ['Pаrtner Collab', 'a Cyrillic а'],
    ['PartnerCoIIab', 'capital I for l'],
    ['Partner Co11ab', 'digit 1 for l'],
    ['Pártner Cöllab', 'accents'],
    ['ＰａｒｔｎｅｒＣｏｌｌａｂ', 'full-width letters'],
    ['PARTNER  COLLAB', 'capitals and spacing'],
    ['Partner-Collaboration', 'punctuation, a longer word'],
    ['Ρartner Cοllab', 'Greek capital rho and small omicron'],
  ])('sees %s (%s) as the service’s name', (name) => {
    expect(lookalikeSkeleton(name)).toContain(SERVICE);
  });

  it.each([['OFFICIAL'], ['0fficial'], ['OFFICIAI'], ['Offіcial'], ['Ófficiál']])('sees %s as “official”', (name) => {
    expect(lookalikeSkeleton(name)).toContain(OFFICIAL);
  });

  it.each([
    ['Checkout Helper'],
    ['Inventory Sync'],
    ['Partners Collaborative'],
    ['Collab Partner'],
    ['Partner Colab'],
    ['Harbor & Vine Checkout'],
    ['Café Ölmühle Exporter'],
    ['Пекарня Sync'],
    ['Officina Tools'],
  ])('leaves %s alone', (name) => {
    const skeleton = lookalikeSkeleton(name);
    expect(skeleton).not.toContain(SERVICE);
    expect(skeleton).not.toContain(OFFICIAL);
  });
});
