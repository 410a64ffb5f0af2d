#include <stdio.h>

int twice(int x);
int twice_inc(int x);

#define TWICE(x) twice(x)

static int inc(int x) { return x - 1; }

int main(void) {
  int (*f)(int) = twice;
  printf("%d\n", TWICE(1) + twice_inc(2) + inc(3) + f(4));
  return 0;
}
