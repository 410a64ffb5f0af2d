import { a } from './a';
export function b(): number { return 1; }
export function c(): number { return a(); }
