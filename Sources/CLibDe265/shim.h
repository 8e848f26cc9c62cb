#ifndef CLIBDE265_SHIM_H
#define CLIBDE265_SHIM_H
#include <libde265/de265.h>
#endif
