import { a } from './a';
describe('a', () => { it('works', () => { expect(a()).toBe(1); }); });
