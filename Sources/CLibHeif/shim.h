#ifndef CLIBHEIF_SHIM_H
#define CLIBHEIF_SHIM_H
#include <libheif/heif.h>
#endif
