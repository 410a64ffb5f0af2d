#ifndef UTIL_H
#define UTIL_H

int util_add(int a, int b);

static inline int util_twice(int x) { return util_add(x, x); }

struct point {
  int x;
  int y;
};

typedef struct {
  int n;
} counter;

typedef int (*callback)(int);

#define ADD3(a, b, c) util_add(util_add(a, b), c)

#endif
