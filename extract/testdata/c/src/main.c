#include <stdio.h>
#include "util.h"

#define TWICE_SUM(x) util_sum3(x, x, 0)

int util_sum3(int a, int b, int c);

static int helper(void) { return 2; }

int main(void) {
  printf("%d\n", util_sum3(1, 2, 3));
  return util_twice(helper()) + ADD3(1, 2, 3) + TWICE_SUM(4);
}
