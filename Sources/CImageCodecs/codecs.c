#include "CImageCodecs.h"
int cic_version(void) { return 1; }
