struct zbuf { int len; };
