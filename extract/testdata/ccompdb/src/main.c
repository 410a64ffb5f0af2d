#include "net/conn.h"
#include "zbuf.h"
#include <stdio.h>

int main(void) { return 0; }
