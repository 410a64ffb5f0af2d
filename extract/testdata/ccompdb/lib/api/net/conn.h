#include "zbuf.h"

struct conn { int fd; };
