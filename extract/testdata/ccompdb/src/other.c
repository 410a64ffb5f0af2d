#include "zbuf.h"
#include "conn.h"

int other(void) { return 1; }
