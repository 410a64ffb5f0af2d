int twice(int x) { return 2 * x; }

static int inc(int x) { return x + 1; }

int twice_inc(int x) { return inc(twice(x)); }
