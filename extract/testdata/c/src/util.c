#include "util.h"

int util_add(int a, int b) { return a + b; }

static int helper(void) { return 1; }

int util_sum3(int a, int b, int c) {
  return ADD3(a, b, c) + helper();
}
