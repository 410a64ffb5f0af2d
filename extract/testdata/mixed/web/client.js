export function call() { return 1; }
